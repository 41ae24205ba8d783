// Every way an MNIST-format folder can be wrong ends in one runner::DataError that names the
// file (or the folder) and what is wrong with it.
#include <gmock/gmock.h>
#include <fstream>

#include "mnist_test_files.hpp"

using ::testing::HasSubstr;
using ::testing::Not;

namespace mnist::testing {
namespace {

class MnistCorruptFilesTest : public MnistFolderTest {
 protected:
  // The message of the DataError that loading the folder throws.
  std::string load_error() {
    return error_message<runner::DataError>([&] { MnistDataset data(options()); });
  }
};

TEST_F(MnistCorruptFilesTest, MissingFilesAreListedTogetherWithTheFolder) {
  write_set();
  std::filesystem::remove(dir_ / kTrainLabelsStem);
  std::filesystem::remove(dir_ / kTestImagesStem);
  std::string message = load_error();
  EXPECT_THAT(message, HasSubstr(dir_.string())) << message;
  EXPECT_THAT(message, HasSubstr(kTrainLabelsStem)) << message;
  EXPECT_THAT(message, HasSubstr(kTestImagesStem)) << message;
  EXPECT_THAT(message, Not(HasSubstr(kTrainImagesStem))) << message;
  EXPECT_THAT(message, Not(HasSubstr(kTestLabelsStem))) << message;
}

TEST_F(MnistCorruptFilesTest, ADataDirThatIsAFileIsSaidToBeNoFolder) {
  MnistOptions o = options();
  o.data_dir = dir_ / "a_file";
  std::ofstream(o.data_dir) << "not a folder";
  try {
    MnistDataset data(o);
    ADD_FAILURE() << "loaded a file as a folder";
  } catch (const runner::DataError& e) {
    EXPECT_THAT(e.what(), HasSubstr(o.data_dir.string() + " (it is not a folder)")) << e.what();
  }
}

TEST_F(MnistCorruptFilesTest, MissingFolderListsAllFourFilesAndHintsWhereToGetThem) {
  MnistOptions o = options();
  o.data_dir = dir_ / "absent";
  try {
    MnistDataset data(o);
    ADD_FAILURE() << "loaded a folder that does not exist";
  } catch (const runner::DataError& e) {
    std::string message = e.what();
    EXPECT_THAT(message, HasSubstr("does not exist")) << message;
    for (const char* stem : {kTrainImagesStem, kTrainLabelsStem, kTestImagesStem, kTestLabelsStem})
      EXPECT_THAT(message, HasSubstr(stem)) << message;
    EXPECT_THAT(e.hint(), HasSubstr("download = true")) << e.hint();
    // The way out without a network: Debian's Fashion-MNIST, installed and pointed at.
    EXPECT_THAT(e.hint(), HasSubstr("apt-get install dataset-fashion-mnist")) << e.hint();
    EXPECT_THAT(e.hint(), HasSubstr("--set dataset.data_dir=/usr/share/datasets/fashion-mnist"))
        << e.hint();
  }
}

TEST_F(MnistCorruptFilesTest, WrongMagicNumber) {
  write_set();
  std::vector<uint8_t> bytes = images_bytes(0, kTrainImages);
  bytes[0] = 0x12;
  std::filesystem::path path = write(kTrainImagesStem, bytes);
  std::string message = load_error();
  EXPECT_THAT(message, HasSubstr(path.string())) << message;
  EXPECT_THAT(message, HasSubstr("expected 2051, found " + std::to_string(0x12000803))) << message;
}

TEST_F(MnistCorruptFilesTest, LabelsFileWhereImagesBelongHasTheWrongDimensionCount) {
  write_set();
  std::filesystem::path path = write(kTestImagesStem, labels_bytes(0, kTestImages));
  std::string message = load_error();
  EXPECT_THAT(message, HasSubstr(path.string())) << message;
  EXPECT_THAT(message, HasSubstr("dimension count: expected 3 (magic 2051), found 1 (magic 2049)"))
      << message;
}

TEST_F(MnistCorruptFilesTest, TruncatedHeader) {
  write_set();
  std::filesystem::path path = write(kTrainLabelsStem, {0x00, 0x00, 0x08, 0x01, 0x00});
  std::string message = load_error();
  EXPECT_THAT(message, HasSubstr(path.string())) << message;
  EXPECT_THAT(message, HasSubstr("truncated in the header")) << message;
}

TEST_F(MnistCorruptFilesTest, TruncatedPixels) {
  write_set();
  std::vector<uint8_t> bytes = images_bytes(0, kTrainImages);
  bytes.resize(bytes.size() - 100);
  std::filesystem::path path = write(kTrainImagesStem, bytes);
  std::string message = load_error();
  EXPECT_THAT(message, HasSubstr(path.string())) << message;
  EXPECT_THAT(message, HasSubstr("truncated")) << message;
  EXPECT_THAT(message, HasSubstr("5 x 28 x 28 = 3920 bytes of data, found 3820")) << message;
}

TEST_F(MnistCorruptFilesTest, TrailingBytes) {
  write_set();
  std::vector<uint8_t> bytes = labels_bytes(kTrainImages, kTestImages);
  bytes.insert(bytes.end(), 7, 0);
  std::filesystem::path path = write(kTestLabelsStem, bytes);
  std::string message = load_error();
  EXPECT_THAT(message, HasSubstr(path.string())) << message;
  EXPECT_THAT(message, HasSubstr("7 trailing bytes")) << message;
}

TEST_F(MnistCorruptFilesTest, ImageAndLabelCountsDiffer) {
  write_set();
  std::filesystem::path labels = write(kTrainLabelsStem, labels_bytes(0, kTrainImages - 1));
  std::string message = load_error();
  EXPECT_THAT(message, HasSubstr((dir_ / kTrainImagesStem).string() + " holds 5 images"))
      << message;
  EXPECT_THAT(message, HasSubstr(labels.string() + " holds 4 labels")) << message;
}

TEST_F(MnistCorruptFilesTest, LabelOutsideTheTenClasses) {
  write_set();
  std::vector<uint8_t> bytes = labels_bytes(0, kTrainImages);
  bytes[8 + 3] = 12;  // after the 8-byte header: label of image 3
  std::filesystem::path path = write(kTrainLabelsStem, bytes);
  std::string message = load_error();
  EXPECT_THAT(message, HasSubstr(path.string())) << message;
  EXPECT_THAT(message, HasSubstr("label 12 at index 3")) << message;
}

TEST_F(MnistCorruptFilesTest, TrainAndTestImageSizesDiffer) {
  write_set();
  write(kTestImagesStem, images_bytes(kTrainImages, kTestImages, 32, 32));
  std::string message = load_error();
  EXPECT_THAT(message, HasSubstr("32x32 images")) << message;
  EXPECT_THAT(message, HasSubstr("28x28 images")) << message;
}

TEST_F(MnistCorruptFilesTest, EmptyImagesFile) {
  write_set();
  std::filesystem::path path = write(kTrainImagesStem, idx_bytes(2051, {0, kSide, kSide}, {}));
  std::string message = load_error();
  EXPECT_THAT(message, HasSubstr(path.string())) << message;
  EXPECT_THAT(message, HasSubstr("holds no pixels")) << message;
}

TEST_F(MnistCorruptFilesTest, CorruptGzipData) {
  write_set();
  std::vector<uint8_t> packed = gzip(images_bytes(0, kTrainImages));
  for (size_t i = packed.size() / 2; i < packed.size() / 2 + 16; ++i) packed[i] ^= 0xff;
  std::filesystem::path path = dir_ / (std::string(kTrainImagesStem) + ".gz");
  std::filesystem::remove(dir_ / kTrainImagesStem);
  write_file(path, packed);
  std::string message = load_error();
  EXPECT_THAT(message, HasSubstr(path.string())) << message;
  EXPECT_THAT(message, HasSubstr("corrupt or truncated gzip data")) << message;
}

TEST_F(MnistCorruptFilesTest, TruncatedGzipStream) {
  write_set(true);
  std::vector<uint8_t> packed = gzip(labels_bytes(kTrainImages, kTestImages));
  packed.resize(packed.size() - 6);  // cuts into the CRC and length trailer
  std::filesystem::path path = dir_ / (std::string(kTestLabelsStem) + ".gz");
  write_file(path, packed);
  std::string message = load_error();
  EXPECT_THAT(message, HasSubstr(path.string())) << message;
  EXPECT_THAT(message, HasSubstr("corrupt or truncated gzip data")) << message;
}

}  // namespace
}  // namespace mnist::testing
