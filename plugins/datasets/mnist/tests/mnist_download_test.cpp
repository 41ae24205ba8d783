// The mnist dataset with download = true, against loopback mirrors serving the small set of
// mnist_test_files.hpp as .gz files: what is fetched, from which mirror, and how failures read.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <runner/datasets/md5.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <set>
#include <thread>

#include "loopback_http_server.hpp"
#include "mnist_download.hpp"
#include "mnist_expected_set.hpp"
#include "mnist_files.hpp"
#include "mnist_test_files.hpp"
#include "runner_testing/files.hpp"

using ::testing::HasSubstr;
using ::testing::Not;

namespace mnist::testing {
namespace {

using runner::datasets::md5_hex;
using runner::datasets::testing::LoopbackHttpServer;
using runner::datasets::testing::ServedFiles;
using runner::datasets::testing::UnansweredPort;
using runner::testing::file_bytes;

std::string as_text(const std::vector<uint8_t>& bytes) { return {bytes.begin(), bytes.end()}; }

// The names in `dir`, hidden ones included.
std::set<std::string> folder_entries(const std::filesystem::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    names.insert(entry.path().filename().string());
  return names;
}

std::string gz_name(size_t file) { return kMnistStems[file] + ".gz"; }

class MnistDownloadTest : public MnistFolderTest {
 protected:
  // The small set's .gz files, in kMnistStems order.
  const std::vector<std::string> gz_ = {as_text(gzip(images_bytes(0, kTrainImages))),
                                        as_text(gzip(labels_bytes(0, kTrainImages))),
                                        as_text(gzip(images_bytes(kTrainImages, kTestImages))),
                                        as_text(gzip(labels_bytes(kTrainImages, kTestImages)))};

  // The four files under `prefix`, e.g. "/a/".
  ServedFiles mirror(const std::string& prefix) const {
    ServedFiles files;
    for (size_t i = 0; i < gz_.size(); ++i) files[prefix + gz_name(i)] = gz_[i];
    return files;
  }

  // The small set's MD5s; a silent server is given up after one second.
  DownloadSource source(std::vector<std::string> mirrors) const {
    DownloadSource source;
    source.mirrors = std::move(mirrors);
    source.md5.clear();
    for (const std::string& bytes : gz_) source.md5.push_back(md5_hex(bytes));
    source.limits = {2, 1024, 1};
    return source;
  }

  MnistOptions downloading(std::vector<std::string> mirrors) const {
    MnistOptions o = options();
    o.download = true;
    o.source = source(std::move(mirrors));
    return o;
  }

  // The message of the DataError that downloading into dir_ throws; its hint in `hint`.
  std::string download_error(const DownloadSource& from, std::string& hint) {
    try {
      download_missing_files(dir_, from);
      ADD_FAILURE() << "the download did not fail";
    } catch (const runner::DataError& e) {
      hint = e.hint();
      return e.what();
    }
    return {};
  }
};

TEST_F(MnistDownloadTest, FillsAFolderItCreatesThenLoads) {
  LoopbackHttpServer server(mirror("/a/"));
  MnistOptions o = downloading({server.url("/a/")});
  o.data_dir = dir_ / "new" / "mnist";
  expect_unnormalized_set(MnistDataset(o));
  EXPECT_EQ(server.total_requests(), 4);
  for (size_t i = 0; i < gz_.size(); ++i) EXPECT_EQ(file_bytes(o.data_dir / gz_name(i)), gz_[i]);
  EXPECT_EQ(folder_entries(o.data_dir).size(), 4u);
}

TEST_F(MnistDownloadTest, FetchesOnlyTheMissingFiles) {
  write(kTrainImagesStem, images_bytes(0, kTrainImages));
  write(kTestLabelsStem, labels_bytes(kTrainImages, kTestImages), /*gzipped=*/true);
  LoopbackHttpServer server(mirror("/a/"));
  expect_unnormalized_set(MnistDataset(downloading({server.url("/a/")})));
  EXPECT_EQ(server.requests("/a/" + gz_name(1)), 1);
  EXPECT_EQ(server.requests("/a/" + gz_name(2)), 1);
  EXPECT_EQ(server.total_requests(), 2);
}

TEST_F(MnistDownloadTest, ACompleteFolderNeedsNoMirror) {
  write_set();
  UnansweredPort closed(/*listening=*/false);
  expect_unnormalized_set(MnistDataset(downloading({closed.url("/")})));
}

TEST_F(MnistDownloadTest, AMirrorWithoutTheFilesFallsBackToTheNext) {
  LoopbackHttpServer server(mirror("/b/"));
  // No trailing slash on the first: one is added.
  expect_unnormalized_set(MnistDataset(downloading({server.url("/a"), server.url("/b/")})));
  for (size_t i = 0; i < gz_.size(); ++i) {
    EXPECT_EQ(server.requests("/a/" + gz_name(i)), 1);
    EXPECT_EQ(server.requests("/b/" + gz_name(i)), 1);
  }
}

TEST_F(MnistDownloadTest, AMirrorServingOtherBytesFallsBackToTheNext) {
  ServedFiles files = mirror("/a/");
  files["/a/" + gz_name(1)] = gz_[3];  // the test labels where the training labels belong
  for (const auto& [path, bytes] : mirror("/b/")) files[path] = bytes;
  LoopbackHttpServer server(files);
  expect_unnormalized_set(MnistDataset(downloading({server.url("/a/"), server.url("/b/")})));
  EXPECT_EQ(server.requests("/b/" + gz_name(1)), 1);
  EXPECT_EQ(server.requests("/b/" + gz_name(0)), 0);
  EXPECT_EQ(file_bytes(dir_ / gz_name(1)), gz_[1]);
}

TEST_F(MnistDownloadTest, EveryMirrorFailingIsOneDataErrorWithEachUrlAndReason) {
  ServedFiles files = mirror("/b/");
  const std::string wrong = "not the training images";
  files["/b/" + gz_name(0)] = wrong;
  LoopbackHttpServer server(files);
  DownloadSource from = source({server.url("/a/"), server.url("/b/")});
  std::string hint;
  std::string message = download_error(from, hint);
  EXPECT_THAT(message, HasSubstr("could not download " + gz_name(0) + " into " + dir_.string()))
      << message;
  EXPECT_THAT(message, HasSubstr(server.url("/a/" + gz_name(0)) + ": HTTP 404")) << message;
  EXPECT_THAT(message, HasSubstr(server.url("/b/" + gz_name(0)) + ": MD5 mismatch: expected " +
                                 from.md5[0] + ", got " + md5_hex(wrong)))
      << message;
  EXPECT_THAT(message, Not(HasSubstr(gz_name(1)))) << "only the failed file's URLs: " << message;
  EXPECT_THAT(message, Not(HasSubstr("\n"))) << message;
  EXPECT_THAT(hint, HasSubstr("mirrors")) << hint;
  EXPECT_THAT(hint, HasSubstr("by hand")) << hint;
  // The three good files are kept; nothing else is left behind.
  EXPECT_EQ(folder_entries(dir_), (std::set<std::string>{gz_name(1), gz_name(2), gz_name(3)}));
}

// Offline: one try per mirror, then one line naming every missing file and where it goes.
TEST_F(MnistDownloadTest, AnUnreachableMirrorIsTriedOnceAndTheMissingFilesNamedOnce) {
  UnansweredPort closed(/*listening=*/false);
  std::string hint;
  std::string message = download_error(source({closed.url("/mnist/")}), hint);
  const std::string refused = ": cannot connect (Connection refused)";
  EXPECT_THAT(message, HasSubstr(closed.url("/mnist/" + gz_name(0)) + refused)) << message;
  EXPECT_THAT(message, Not(HasSubstr(gz_name(1)))) << "the other files were not tried: " << message;
  EXPECT_THAT(message, HasSubstr(dir_.string() + " lacks " + kMnistStems[0] + ", " +
                                 kMnistStems[1] + ", " + kMnistStems[2] + ", " + kMnistStems[3]))
      << message;
  EXPECT_THAT(message, HasSubstr("put those files, plain or .gz, into " + dir_.string()))
      << message;
  EXPECT_THAT(message, Not(HasSubstr("\n"))) << message;
  EXPECT_THAT(hint, HasSubstr("apt-get install dataset-fashion-mnist")) << hint;
  EXPECT_THAT(hint, HasSubstr("--set dataset.data_dir=/usr/share/datasets/fashion-mnist")) << hint;
  EXPECT_TRUE(folder_entries(dir_).empty()) << "a temporary file was left behind";
}

TEST_F(MnistDownloadTest, AFailedDownloadLeavesNoFolderItCreated) {
  UnansweredPort closed(/*listening=*/false);
  MnistOptions o = downloading({closed.url("/")});
  o.data_dir = dir_ / "data" / "mnist";
  std::string message = error_message<runner::DataError>([&] { MnistDataset data(o); });
  EXPECT_THAT(message, HasSubstr(o.data_dir.string() + " lacks " + kMnistStems[0])) << message;
  EXPECT_TRUE(folder_entries(dir_).empty()) << "data/ or data/mnist/ was left behind";
}

TEST_F(MnistDownloadTest, ALaterFileOfAnUnreachableMirrorNamesOnlyTheFilesStillMissing) {
  write_file(dir_ / gz_name(0), std::vector<uint8_t>(gz_[0].begin(), gz_[0].end()));
  UnansweredPort closed(/*listening=*/false);
  std::string hint;
  std::string message = download_error(source({closed.url("/")}), hint);
  EXPECT_THAT(message, HasSubstr(dir_.string() + " lacks " + kMnistStems[1] + ", ")) << message;
  EXPECT_THAT(message, Not(HasSubstr(kMnistStems[0] + ","))) << message;
  EXPECT_EQ(folder_entries(dir_), (std::set<std::string>{gz_name(0)})) << "a folder it had";
}

TEST_F(MnistDownloadTest, TwoDownloadsIntoOneFolderAtOnceBothEndWithWholeFiles) {
  LoopbackHttpServer server(mirror("/a/"));
  DownloadSource from = source({server.url("/a/")});
  std::thread other([&] { download_missing_files(dir_, from); });
  download_missing_files(dir_, from);
  other.join();
  for (size_t i = 0; i < gz_.size(); ++i) EXPECT_EQ(file_bytes(dir_ / gz_name(i)), gz_[i]);
  EXPECT_EQ(folder_entries(dir_).size(), 4u);
  expect_unnormalized_set(MnistDataset(options()));
}

TEST_F(MnistDownloadTest, AFolderThatCannotBeCreatedIsADataError) {
  write_file(dir_ / "a_file", {1, 2, 3});
  UnansweredPort closed(/*listening=*/false);
  MnistOptions o = downloading({closed.url("/")});
  o.data_dir = dir_ / "a_file" / "mnist";
  std::string message = error_message<runner::DataError>([&] { MnistDataset data(o); });
  EXPECT_THAT(message, HasSubstr(o.data_dir.string() + ": cannot create the folder")) << message;
}

TEST_F(MnistDownloadTest, KeysDefaultToMnistsMirrorsAndSums) {
  MnistOptions o = MnistOptions::from(default_options(dir_));
  EXPECT_FALSE(o.download);
  EXPECT_EQ(o.source.mirrors,
            (std::vector<std::string>{"https://ossci-datasets.s3.amazonaws.com/mnist/",
                                      "http://yann.lecun.com/exdb/mnist/"}));
  // torchvision's MNIST sums (torchvision/datasets/mnist.py, MNIST.resources).
  EXPECT_EQ(o.source.md5,
            (std::vector<std::string>{
                "f68b3c2dcbeaaa9fbdd348bbdeb94873", "d53e105ee54ea40749a09fcbcd1e9432",
                "9fb629c4189551a2d022fa330f9573f3", "ec29112dd5afa0611ce80d1b7f02629c"}));
}

TEST_F(MnistDownloadTest, Md5ListOfOtherLengthIsAConfigErrorNamingTheKey) {
  runner::Options o = default_options(dir_);
  o.set("md5", std::vector<std::string>(3, "d41d8cd98f00b204e9800998ecf8427e"));
  std::string message = error_message<runner::ConfigError>([&] { MnistOptions::from(o); });
  EXPECT_THAT(message, HasSubstr("[dataset] md5 needs 4 entries, one per file; it has 3"))
      << message;
}

TEST_F(MnistDownloadTest, Md5EntryThatIsNotHexIsAConfigErrorNamingTheEntry) {
  runner::Options o = default_options(dir_);
  std::vector<std::string> sums(4, "d41d8cd98f00b204e9800998ecf8427e");
  sums[2] = "d41d8cd98f00b204e9800998ecf8427z";
  o.set("md5", sums);
  std::string message = error_message<runner::ConfigError>([&] { MnistOptions::from(o); });
  EXPECT_THAT(message, HasSubstr("[dataset] md5 entry 3 (t10k-images-idx3-ubyte.gz)")) << message;
  EXPECT_THAT(message, HasSubstr("not 32 hex digits")) << message;
}

TEST_F(MnistDownloadTest, Md5InCapitalsIsAcceptedAndComparedInLowerCase) {
  runner::Options o = default_options(dir_);
  o.set("md5", std::vector<std::string>(4, "D41D8CD98F00B204E9800998ECF8427E"));
  EXPECT_EQ(MnistOptions::from(o).source.md5,
            std::vector<std::string>(4, "d41d8cd98f00b204e9800998ecf8427e"));
}

TEST_F(MnistDownloadTest, EmptyMirrorsOrAnEmptyUrlIsAConfigError) {
  runner::Options o = default_options(dir_);
  o.set("mirrors", std::vector<std::string>{});
  std::string message = error_message<runner::ConfigError>([&] { MnistOptions::from(o); });
  EXPECT_THAT(message, HasSubstr("[dataset] mirrors is empty")) << message;
  o.set("mirrors", std::vector<std::string>{"http://example.org/", ""});
  message = error_message<runner::ConfigError>([&] { MnistOptions::from(o); });
  EXPECT_THAT(message, HasSubstr("[dataset] mirrors holds an empty URL")) << message;
}

}  // namespace
}  // namespace mnist::testing
