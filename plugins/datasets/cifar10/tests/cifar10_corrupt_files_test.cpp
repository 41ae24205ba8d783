// Every way a CIFAR-10 folder can be wrong ends in one runner::DataError that names the file
// (or the folders) and what is wrong with it.
#include <gmock/gmock.h>
#include "cifar10_test_files.hpp"

using ::testing::HasSubstr;
using ::testing::Not;

namespace cifar10::testing {
namespace {

class CifarCorruptFilesTest : public CifarFolderTest {
 protected:
  runner::DataError load_error() {
    return expect_error<runner::DataError>([&] { Cifar10Dataset data(options()); });
  }
};

TEST_F(CifarCorruptFilesTest, MissingFilesAreListedTogetherWithTheFoldersSearched) {
  write_set();
  std::filesystem::remove(dir_ / train_file(3));
  std::filesystem::remove(dir_ / kTestFile);
  runner::DataError e = load_error();
  std::string message = e.what();
  EXPECT_THAT(message, HasSubstr("missing in " + dir_.string() + ": ")) << message;
  EXPECT_THAT(message, HasSubstr("data_batch_3.bin, test_batch.bin")) << message;
  EXPECT_THAT(message, Not(HasSubstr(train_file(1)))) << message;
  EXPECT_THAT(message, HasSubstr((dir_ / kTarballFolder).string() + " (the folder does not exist)"))
      << message;
  EXPECT_THAT(e.hint(), HasSubstr("https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz"))
      << e.hint();
  EXPECT_THAT(e.hint(), HasSubstr("extract")) << e.hint();
  // Both ways to the files: the key, and the commands with this data_dir.
  EXPECT_THAT(e.hint(), HasSubstr("download = true")) << e.hint();
  EXPECT_THAT(e.hint(), HasSubstr("--set dataset.download=true")) << e.hint();
  EXPECT_THAT(e.hint(), HasSubstr("curl -LO https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz"
                                  " && tar xzf cifar-10-binary.tar.gz -C " +
                                  dir_.string()))
      << e.hint();
}

TEST_F(CifarCorruptFilesTest, APartialTarballFolderIsTheOneReported) {
  write_set(kTarballFolder);
  std::filesystem::remove(dir_ / kTarballFolder / train_file(5));
  std::string message = load_error().what();
  EXPECT_THAT(message,
              HasSubstr("missing in " + (dir_ / kTarballFolder).string() + ": data_batch_5.bin;"))
      << message;
}

TEST_F(CifarCorruptFilesTest, MissingFolderListsAllSixFiles) {
  Cifar10Options o = options();
  o.data_dir = dir_ / "absent";
  std::string message = expect_error<runner::DataError>([&] { Cifar10Dataset data(o); }).what();
  EXPECT_THAT(message, HasSubstr("does not exist")) << message;
  for (int number = 1; number <= kTrainFiles; ++number)
    EXPECT_THAT(message, HasSubstr(train_file(number))) << message;
  EXPECT_THAT(message, HasSubstr(kTestFile)) << message;
}

TEST_F(CifarCorruptFilesTest, FileEndingInsideARecordNamesItsSizeAndTheRecord) {
  write_set();
  std::vector<uint8_t> bytes = records_bytes(2, kRecordsPerTrainFile);
  bytes.resize(bytes.size() + 100, 0);
  std::filesystem::path path = write(train_file(2), bytes);
  std::string message = load_error().what();
  const int64_t size = kRecordsPerTrainFile * kRecordBytes + 100;
  EXPECT_THAT(message, HasSubstr(path.string() + ": " + std::to_string(size) + " bytes"))
      << message;
  EXPECT_THAT(message, HasSubstr("record 2 (from byte " +
                                 std::to_string(kRecordsPerTrainFile * kRecordBytes) +
                                 ") is cut short after 100 of its 3073 bytes"))
      << message;
}

TEST_F(CifarCorruptFilesTest, FileShorterThanOneRecord) {
  write_set();
  std::filesystem::path path = write(kTestFile, std::vector<uint8_t>(1000, 0));
  std::string message = load_error().what();
  EXPECT_THAT(message, HasSubstr(path.string() + ": 1000 bytes")) << message;
  EXPECT_THAT(message, HasSubstr("record 0 (from byte 0) is cut short after 1000")) << message;
}

TEST_F(CifarCorruptFilesTest, EmptyFile) {
  write_set();
  std::filesystem::path path = write(train_file(4), {});
  std::string message = load_error().what();
  EXPECT_THAT(message, HasSubstr(path.string() + ": empty file")) << message;
}

TEST_F(CifarCorruptFilesTest, LabelAboveNineNamesTheFileAndTheRecord) {
  write_set();
  std::vector<uint8_t> bytes = records_bytes(6, kRecordsPerTrainFile);
  bytes[1 * kRecordBytes] = 10;  // the label byte of record 1
  std::filesystem::path path = write(train_file(4), bytes);
  runner::DataError e = load_error();
  std::string message = e.what();
  EXPECT_THAT(message, HasSubstr(path.string() + ": record 1")) << message;
  EXPECT_THAT(message, HasSubstr("has label 10")) << message;
  EXPECT_THAT(e.hint(), HasSubstr("CIFAR-100")) << e.hint();
}

TEST_F(CifarCorruptFilesTest, LabelAboveNineInTheTestFile) {
  write_set();
  std::vector<uint8_t> bytes = records_bytes(kTrainImages, kTestImages);
  bytes[2 * kRecordBytes] = 255;
  std::filesystem::path path = write(kTestFile, bytes);
  std::string message = load_error().what();
  EXPECT_THAT(message, HasSubstr(path.string() + ": record 2")) << message;
  EXPECT_THAT(message, HasSubstr("has label 255")) << message;
}

}  // namespace
}  // namespace cifar10::testing
