// The cifar10 dataset with download = true, against a loopback mirror serving a small archive
// in the official layout (cifar-10-batches-bin/*.bin of cifar10_test_files.hpp, written with
// zlib here): what is fetched and extracted, and that every failure is one line that leaves
// nothing behind.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <runner/datasets/md5.hpp>

#include <map>
#include <set>
#include <thread>

#include "cifar10_download.hpp"
#include "cifar10_test_files.hpp"
#include "loopback_http_server.hpp"
#include "runner_testing/files.hpp"
#include "tar_writer.hpp"

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

namespace cifar10::testing {
namespace {

using runner::datasets::md5_hex;
using runner::datasets::testing::LoopbackHttpServer;
using runner::datasets::testing::ServedFiles;
using runner::datasets::testing::tar_file;
using runner::datasets::testing::tar_gz;
using runner::datasets::testing::TarMember;
using runner::datasets::testing::UnansweredPort;
using runner::testing::file_bytes;

const std::string kArchivePath = "/kriz/cifar-10-binary.tar.gz";

std::string as_text(const std::vector<uint8_t>& bytes) { return {bytes.begin(), bytes.end()}; }

// The six files' bytes by name: images 0..9 in training, 10..12 in test, as write_set has them.
std::map<std::string, std::string> set_files() {
  std::map<std::string, std::string> files;
  for (int number = 1; number <= kTrainFiles; ++number)
    files[train_file(number)] =
        as_text(records_bytes((number - 1) * kRecordsPerTrainFile, kRecordsPerTrainFile));
  files[kTestFile] = as_text(records_bytes(kTrainImages, kTestImages));
  return files;
}

// The official archive's layout: the folder, the six files among its other two, GNU's magic.
std::vector<TarMember> official_members() {
  const std::string folder = std::string(kTarballFolder) + "/";
  std::vector<TarMember> members = {{folder, "", '5'},
                                    tar_file(folder + "batches.meta.txt", "airplane\n")};
  for (const auto& [name, bytes] : set_files()) members.push_back(tar_file(folder + name, bytes));
  members.push_back(tar_file(folder + "readme.html", "<html></html>"));
  return members;
}

// The names in `dir`, hidden ones included; none when it does not exist.
std::set<std::string> entries(const std::filesystem::path& dir) {
  std::set<std::string> names;
  if (!std::filesystem::exists(dir)) return names;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    names.insert(entry.path().filename().string());
  return names;
}

std::set<std::string> six_files() { return {kCifarFileNames.begin(), kCifarFileNames.end()}; }

class CifarDownloadTest : public CifarFolderTest {
 protected:
  const std::string archive_ = tar_gz(official_members(), /*gnu_magic=*/true);

  // A mirror serving `archive` (by default the good one) at kArchivePath.
  static ServedFiles mirror(const std::string& archive) { return {{kArchivePath, archive}}; }

  // Checked against the MD5 of `served`; a silent server is given up after one second.
  DownloadSource source(std::vector<std::string> mirrors, const std::string& served) const {
    DownloadSource source;
    source.mirrors = std::move(mirrors);
    source.md5 = md5_hex(served);
    source.limits = {2, 1024, 1};
    return source;
  }

  // The DataError that downloading into data_dir throws.
  runner::DataError download_error(const DownloadSource& from) {
    return expect_error<runner::DataError>([&] { download_cifar_files(dir_, from); });
  }

  // The failure of downloading `archive`, served with its own MD5 (an archive the md5 key
  // vouches for), whose message starts with its URL.
  std::string refusal(const std::string& archive) {
    LoopbackHttpServer server(mirror(archive));
    runner::DataError e = download_error(source({server.url("/kriz/")}, archive));
    std::string message = e.what();
    EXPECT_THAT(message, StartsWith(server.url(kArchivePath) + ": ")) << message;
    EXPECT_THAT(message, Not(HasSubstr("\n"))) << message;
    EXPECT_THAT(e.hint(), HasSubstr("md5")) << e.hint();
    EXPECT_TRUE(entries(dir_).empty()) << "left behind: " << *entries(dir_).begin();
    return message;
  }

  void expect_the_small_set(const Cifar10Options& o) {
    Cifar10Dataset data(o);
    EXPECT_EQ(data.size(runner::Split::train), kTrainImages);
    EXPECT_EQ(data.size(runner::Split::test), kTestImages);
    runner::Batch test = data.get_batch(runner::Split::test, torch::arange(kTestImages));
    for (int i = 0; i < kTestImages; ++i)
      EXPECT_EQ(test.targets[i].item<int64_t>(), label(kTrainImages + i));
  }
};

TEST_F(CifarDownloadTest, FetchesExtractsIntoTheTarballFolderAndLoads) {
  LoopbackHttpServer server(mirror(archive_));
  Cifar10Options o = options();
  o.data_dir = dir_ / "new" / "data";
  o.download = true;
  o.source = source({server.url("/kriz/")}, archive_);
  expect_the_small_set(o);
  EXPECT_EQ(server.total_requests(), 1);
  EXPECT_EQ(entries(o.data_dir), std::set<std::string>{kTarballFolder});
  EXPECT_EQ(entries(o.data_dir / kTarballFolder), six_files())
      << "only the six files: no archive, temporary file or other member";
  for (const auto& [name, bytes] : set_files())
    EXPECT_EQ(file_bytes(o.data_dir / kTarballFolder / name), bytes) << name;
}

TEST_F(CifarDownloadTest, FilesAlreadyThereAreNotFetched) {
  LoopbackHttpServer server(mirror(archive_));
  write_set();
  download_cifar_files(dir_, source({server.url("/kriz/")}, archive_));
  write_set(kTarballFolder);
  std::filesystem::remove(dir_ / train_file(1));
  download_cifar_files(dir_, source({server.url("/kriz/")}, archive_));
  EXPECT_EQ(server.total_requests(), 0);
}

TEST_F(CifarDownloadTest, OnlyTheFilesTheFolderLacksAreWritten) {
  LoopbackHttpServer server(mirror(archive_));
  std::filesystem::create_directories(dir_ / kTarballFolder);
  const std::vector<uint8_t> own = records_bytes(20, 1);
  write_file(dir_ / kTarballFolder / kTestFile, own);
  download_cifar_files(dir_, source({server.url("/kriz/")}, archive_));
  EXPECT_EQ(file_bytes(dir_ / kTarballFolder / kTestFile), as_text(own));
  EXPECT_EQ(file_bytes(dir_ / kTarballFolder / train_file(2)), set_files()[train_file(2)]);
  EXPECT_EQ(entries(dir_ / kTarballFolder), six_files());
}

TEST_F(CifarDownloadTest, AMirrorWithoutTheArchiveFallsBackToTheNext) {
  LoopbackHttpServer server(mirror(archive_));
  // No trailing slash on either: one is added.
  download_cifar_files(dir_, source({server.url("/absent"), server.url("/kriz")}, archive_));
  EXPECT_EQ(server.requests("/absent/cifar-10-binary.tar.gz"), 1);
  EXPECT_EQ(server.requests(kArchivePath), 1);
  expect_the_small_set(options());
}

TEST_F(CifarDownloadTest, AWrongMd5IsRefusedNamingBothSumsAndLeavesNothing) {
  LoopbackHttpServer server(mirror(archive_));
  DownloadSource from = source({server.url("/kriz/")}, "another archive");
  runner::DataError e = download_error(from);
  std::string message = e.what();
  EXPECT_THAT(message, HasSubstr("could not download cifar-10-binary.tar.gz into " +
                                 (dir_ / kTarballFolder).string()))
      << message;
  EXPECT_THAT(message, HasSubstr(server.url(kArchivePath) + ": MD5 mismatch: expected " + from.md5 +
                                 ", got " + md5_hex(archive_)))
      << message;
  EXPECT_THAT(message, Not(HasSubstr("\n"))) << message;
  EXPECT_THAT(e.hint(), HasSubstr("md5")) << e.hint();
  EXPECT_TRUE(entries(dir_).empty()) << "left behind: " << *entries(dir_).begin();
}

TEST_F(CifarDownloadTest, AnUnreachableUrlIsOneLineWithTheWayByHand) {
  UnansweredPort closed(/*listening=*/false);
  Cifar10Options o = options();
  o.data_dir = dir_ / "data";
  o.download = true;
  o.source = source({closed.url("/kriz/")}, archive_);
  runner::DataError e = expect_error<runner::DataError>([&] { Cifar10Dataset data(o); });
  std::string message = e.what();
  EXPECT_THAT(message,
              HasSubstr(closed.url(kArchivePath) + ": cannot connect (Connection refused)"))
      << message;
  EXPECT_THAT(message, Not(HasSubstr("\n"))) << message;
  EXPECT_THAT(e.hint(), HasSubstr("curl -LO https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz"
                                  " && tar xzf cifar-10-binary.tar.gz -C " +
                                  o.data_dir.string()))
      << e.hint();
  EXPECT_TRUE(entries(dir_).empty()) << "the folders it made were left behind";
}

TEST_F(CifarDownloadTest, ATruncatedArchiveIsRefused) {
  std::string message = refusal(archive_.substr(0, archive_.size() * 2 / 3));
  EXPECT_THAT(message, HasSubstr("truncated")) << message;
}

// The entry escapes to a name beside the scratch folder that no other file has (a plain "../x"
// would meet any /tmp/x already there).
TEST_F(CifarDownloadTest, AnArchiveWithDotDotIsRefused) {
  const std::string outside = dir_.filename().string() + "-escaped";
  std::vector<TarMember> members = official_members();
  members.push_back(tar_file("../" + outside, "outside"));
  std::string message = refusal(tar_gz(members));
  EXPECT_THAT(message, HasSubstr("refused: entry ../" + outside)) << message;
  EXPECT_FALSE(std::filesystem::exists(dir_.parent_path() / outside));
}

TEST_F(CifarDownloadTest, AnArchiveWithAnAbsolutePathIsRefused) {
  const std::filesystem::path outside = dir_.string() + "_absolute";
  std::vector<TarMember> members = official_members();
  members.insert(members.begin() + 2, tar_file(outside.string(), "outside"));
  std::string message = refusal(tar_gz(members));
  EXPECT_THAT(message, HasSubstr("refused: entry " + outside.string() + " has an absolute path"))
      << message;
  EXPECT_FALSE(std::filesystem::exists(outside));
}

TEST_F(CifarDownloadTest, AnArchiveWithASymbolicLinkIsRefused) {
  std::vector<TarMember> members = official_members();
  const std::string link = std::string(kTarballFolder) + "/" + kTestFile;
  members.back() = {link, "", '2', "/etc/passwd"};
  std::string message = refusal(tar_gz(members));
  EXPECT_THAT(message, HasSubstr("refused: entry " + link + " is a symbolic link")) << message;
}

TEST_F(CifarDownloadTest, AnArchiveWithoutOneOfTheFilesIsRefused) {
  std::vector<TarMember> members;
  for (const TarMember& member : official_members())
    if (member.name.find(kTestFile) == std::string::npos) members.push_back(member);
  std::string message = refusal(tar_gz(members));
  EXPECT_THAT(message, HasSubstr("the archive holds no cifar-10-batches-bin/test_batch.bin"))
      << message;
}

TEST_F(CifarDownloadTest, TwoDownloadsIntoOneFolderAtOnceBothEndWithWholeFiles) {
  LoopbackHttpServer server(mirror(archive_));
  DownloadSource from = source({server.url("/kriz/")}, archive_);
  std::thread other([&] { download_cifar_files(dir_, from); });
  download_cifar_files(dir_, from);
  other.join();
  EXPECT_EQ(entries(dir_ / kTarballFolder), six_files());
  for (const auto& [name, bytes] : set_files())
    EXPECT_EQ(file_bytes(dir_ / kTarballFolder / name), bytes) << name;
}

// The [dataset] table a run would pass: every key at its default, data_dir = `dir`.
runner::Options default_options(const std::filesystem::path& dir) {
  runner::Options options("dataset");
  const runner::Schema schema = cifar10_schema();
  for (const runner::KeySpec& key : schema.keys())
    if (key.default_value) options.set(key.name, *key.default_value);
  options.set("data_dir", dir.string());
  return options;
}

TEST_F(CifarDownloadTest, KeysDefaultToTheOfficialArchive) {
  Cifar10Options o = Cifar10Options::from(default_options(dir_));
  EXPECT_FALSE(o.download);
  EXPECT_EQ(o.source.mirrors, std::vector<std::string>{"https://www.cs.toronto.edu/~kriz/"});
  EXPECT_EQ(o.source.md5, "c32a1d4ab5d03f1284b67883e8d87530");
}

TEST_F(CifarDownloadTest, Md5ThatIsNotHexIsAConfigErrorNamingTheKey) {
  runner::Options o = default_options(dir_);
  o.set("md5", std::string("c32a1d4ab5d03f1284b67883e8d8753"));
  std::string message = expect_error<runner::ConfigError>([&] { Cifar10Options::from(o); }).what();
  EXPECT_THAT(message, HasSubstr("[dataset] md5 \"c32a1d4ab5d03f1284b67883e8d8753\" is not 32 "
                                 "hex digits"))
      << message;
}

TEST_F(CifarDownloadTest, Md5InCapitalsIsComparedInLowerCase) {
  runner::Options o = default_options(dir_);
  o.set("md5", std::string("C32A1D4AB5D03F1284B67883E8D87530"));
  EXPECT_EQ(Cifar10Options::from(o).source.md5, "c32a1d4ab5d03f1284b67883e8d87530");
}

TEST_F(CifarDownloadTest, EmptyMirrorsIsAConfigError) {
  runner::Options o = default_options(dir_);
  o.set("mirrors", std::vector<std::string>{});
  std::string message = expect_error<runner::ConfigError>([&] { Cifar10Options::from(o); }).what();
  EXPECT_THAT(message, HasSubstr("[dataset] mirrors is empty")) << message;
}

}  // namespace
}  // namespace cifar10::testing
