// Fetching one URL from loopback servers: the body lands in the file, and each way a fetch
// fails is a short reason.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <runner/errors.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <runner/datasets/http_fetch.hpp>
#include "loopback_http_server.hpp"
#include "runner_testing/files.hpp"

using ::testing::HasSubstr;

namespace runner::datasets::testing {
namespace {

using runner::testing::file_bytes;

// Gives up on a silent server after one second instead of thirty.
constexpr FetchLimits kQuickLimits{2, 1024, 1};

class HttpFetchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = std::filesystem::temp_directory_path() /
            ("runner_dataset_fetch_" +
             std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
             std::to_string(::getpid()));
  }
  void TearDown() override { std::filesystem::remove(path_); }

  // The reason of the FetchError that fetching `url` throws.
  std::string failure(const std::string& url) {
    try {
      http_fetch(url, path_, kQuickLimits);
    } catch (const FetchError& e) {
      return e.what();
    }
    ADD_FAILURE() << "fetched " << url;
    return {};
  }

  std::filesystem::path path_;
};

TEST_F(HttpFetchTest, WritesTheBodyToTheFile) {
  std::string body;
  for (int i = 0; i < 300000; ++i) body += static_cast<char>(i * 7 % 256);
  LoopbackHttpServer server(ServedFiles{{"/data/file.bin", body}});
  http_fetch(server.url("/data/file.bin"), path_, kQuickLimits);
  EXPECT_EQ(file_bytes(path_), body);
  EXPECT_EQ(server.requests("/data/file.bin"), 1);
}

TEST_F(HttpFetchTest, AnAbsentPathIsHttp404) {
  LoopbackHttpServer server(ServedFiles{});
  EXPECT_EQ(failure(server.url("/absent.gz")), "HTTP 404");
}

TEST_F(HttpFetchTest, ARefusedConnectionSaysSo) {
  UnansweredPort closed(/*listening=*/false);
  EXPECT_EQ(failure(closed.url("/file.gz")), "cannot connect (Connection refused)");
}

TEST_F(HttpFetchTest, AServerThatNeverAnswersIsATimeout) {
  UnansweredPort silent(/*listening=*/true);
  std::string reason = failure(silent.url("/file.gz"));
  EXPECT_EQ(reason.rfind("timeout (", 0), 0u) << reason;
}

TEST_F(HttpFetchTest, AFileThatCannotBeCreatedIsADataError) {
  LoopbackHttpServer server(ServedFiles{{"/file.gz", "bytes"}});
  std::filesystem::path unwritable = path_ / "no" / "such" / "folder";
  try {
    http_fetch(server.url("/file.gz"), unwritable, kQuickLimits);
    ADD_FAILURE() << "wrote into a folder that does not exist";
  } catch (const runner::DataError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr(unwritable.string())) << e.what();
  }
}

}  // namespace
}  // namespace runner::datasets::testing
