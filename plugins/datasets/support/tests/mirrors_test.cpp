// The mirror loop against loopback servers: the first mirror with the right bytes serves the
// file, and every other try is kept with its URL and reason; the key that lists mirrors.
#include <gtest/gtest.h>
#include <runner/datasets/md5.hpp>
#include <runner/datasets/mirrors.hpp>
#include <runner/errors.hpp>

#include "loopback_http_server.hpp"
#include "runner_testing/files.hpp"
#include "scratch_folder.hpp"

namespace runner::datasets::testing {
namespace {

// A silent server is given up after one second.
constexpr FetchLimits kMirrorTestLimits{2, 1024, 1};

class MirrorsTest : public ScratchFolderTest {
 protected:
  const std::string body_ = "the file's bytes";
  const std::string md5_ = md5_hex(body_);

  MirrorFetch fetch(const std::vector<std::string>& mirrors) {
    return fetch_from_mirrors(mirrors, "file.gz", md5_, dir_ / "into", kMirrorTestLimits);
  }
};

TEST_F(MirrorsTest, UrlJoinsMirrorAndFileWithOneSlash) {
  EXPECT_EQ(mirror_url("http://a/b", "f.gz"), "http://a/b/f.gz");
  EXPECT_EQ(mirror_url("http://a/b/", "f.gz"), "http://a/b/f.gz");
}

TEST_F(MirrorsTest, TheFirstMirrorThatServesTheFileIsUsed) {
  LoopbackHttpServer server(ServedFiles{{"/b/file.gz", body_}, {"/c/file.gz", body_}});
  MirrorFetch fetched = fetch({server.url("/a"), server.url("/b/"), server.url("/c/")});
  ASSERT_TRUE(fetched.fetched());
  EXPECT_EQ(fetched.url, server.url("/b/file.gz"));
  EXPECT_EQ(runner::testing::file_bytes(dir_ / "into"), body_);
  ASSERT_EQ(fetched.failures.size(), 1u);
  EXPECT_EQ(fetched.failures[0].url, server.url("/a/file.gz"));
  EXPECT_EQ(fetched.failures[0].reason, "HTTP 404");
  EXPECT_FALSE(fetched.failures[0].unreachable);
  EXPECT_EQ(server.requests("/c/file.gz"), 0);
}

TEST_F(MirrorsTest, OtherBytesAreAnMd5MismatchNamingBothSums) {
  const std::string other = "other bytes";
  LoopbackHttpServer server(ServedFiles{{"/a/file.gz", other}});
  MirrorFetch fetched = fetch({server.url("/a/")});
  EXPECT_FALSE(fetched.fetched());
  ASSERT_EQ(fetched.failures.size(), 1u);
  EXPECT_EQ(fetched.failures[0].reason,
            "MD5 mismatch: expected " + md5_ + ", got " + md5_hex(other));
}

TEST_F(MirrorsTest, EveryFailureIsKeptAndSaysWhetherTheServerAnswered) {
  LoopbackHttpServer server(ServedFiles{});
  UnansweredPort closed(/*listening=*/false);
  MirrorFetch fetched = fetch({closed.url("/"), server.url("/")});
  EXPECT_FALSE(fetched.fetched());
  ASSERT_EQ(fetched.failures.size(), 2u);
  EXPECT_TRUE(fetched.failures[0].unreachable);
  EXPECT_FALSE(all_unreachable(fetched.failures));
  EXPECT_TRUE(all_unreachable({fetched.failures[0]}));
  EXPECT_EQ(attempts_text(fetched.failures), closed.url("/file.gz") +
                                                 ": cannot connect (Connection refused); " +
                                                 server.url("/file.gz") + ": HTTP 404");
}

TEST_F(MirrorsTest, MirrorsKeyThatIsEmptyOrHoldsAnEmptyUrlIsAConfigError) {
  runner::Options options("dataset");
  options.set("mirrors", std::vector<std::string>{});
  try {
    checked_mirrors(options, "mirrors", "list base URLs");
    ADD_FAILURE() << "an empty list was taken";
  } catch (const runner::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "[dataset] mirrors is empty");
    EXPECT_EQ(e.hint(), "list base URLs");
  }
  options.set("mirrors", std::vector<std::string>{"http://example.org/", ""});
  try {
    checked_mirrors(options, "mirrors", "list base URLs");
    ADD_FAILURE() << "an empty URL was taken";
  } catch (const runner::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "[dataset] mirrors holds an empty URL");
  }
  options.set("mirrors", std::vector<std::string>{"http://example.org/"});
  EXPECT_EQ(checked_mirrors(options, "mirrors", ""),
            std::vector<std::string>{"http://example.org/"});
}

}  // namespace
}  // namespace runner::datasets::testing
