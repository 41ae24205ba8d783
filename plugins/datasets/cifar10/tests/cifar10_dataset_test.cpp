// The cifar10 dataset on small known files: shapes, pixel order, labels, class names,
// normalization, sizes, the tarball's subfolder and its registration.
#include <gmock/gmock.h>
#include <runner/plugin.hpp>

#include <cmath>

#include "cifar10_test_files.hpp"

using ::testing::HasSubstr;

namespace cifar10::testing {
namespace {

using runner::Split;

// (N, 3, 32, 32): pixel bytes of images first..first+count, as float.
torch::Tensor expected_bytes(int first, int count) {
  torch::Tensor out = torch::empty({count, 3, 32, 32});
  auto a = out.accessor<float, 4>();
  for (int i = 0; i < count; ++i)
    for (int channel = 0; channel < 3; ++channel)
      for (int row = 0; row < 32; ++row)
        for (int col = 0; col < 32; ++col)
          a[i][channel][row][col] = pixel(first + i, channel, row, col);
  return out;
}

torch::Tensor expected_labels(int first, int count) {
  std::vector<int64_t> labels;
  for (int i = first; i < first + count; ++i) labels.push_back(label(i));
  return torch::tensor(labels, torch::kInt64);
}

runner::Batch whole_split(const runner::Dataset& data, Split split) {
  return data.get_batch(split, torch::arange(data.size(split), torch::kInt64));
}

TEST_F(CifarFolderTest, LoadsBothSplitsAsBytesOverTwoFiftyFive) {
  write_set();
  Cifar10Dataset data(options());
  ASSERT_EQ(data.size(Split::train), kTrainImages);
  ASSERT_EQ(data.size(Split::test), kTestImages);
  runner::Batch train = whole_split(data, Split::train);
  runner::Batch test = whole_split(data, Split::test);
  EXPECT_EQ(train.inputs.sizes(), torch::IntArrayRef({kTrainImages, 3, 32, 32}));
  EXPECT_EQ(train.inputs.dtype(), torch::kFloat32);
  EXPECT_EQ(train.targets.sizes(), torch::IntArrayRef({kTrainImages}));
  EXPECT_EQ(train.targets.dtype(), torch::kInt64);
  EXPECT_TRUE(torch::allclose(train.inputs, expected_bytes(0, kTrainImages) / 255));
  EXPECT_TRUE(torch::allclose(test.inputs, expected_bytes(kTrainImages, kTestImages) / 255));
  EXPECT_TRUE(torch::equal(train.targets, expected_labels(0, kTrainImages)));
  EXPECT_TRUE(torch::equal(test.targets, expected_labels(kTrainImages, kTestImages)));
}

TEST_F(CifarFolderTest, ByteOffsetMapsToChannelRowAndColumn) {
  write_set();
  // Record 1 of test_batch.bin: label 7, every pixel 0 but the byte of green, row 2, column 5.
  std::vector<uint8_t> bytes = records_bytes(kTrainImages, kTestImages);
  std::vector<uint8_t> chosen(kRecordBytes, 0);
  chosen[0] = 7;
  chosen[1 + 1 * 1024 + 2 * 32 + 5] = 255;
  std::copy(chosen.begin(), chosen.end(), bytes.begin() + kRecordBytes);
  write(kTestFile, bytes);
  runner::Batch batch = Cifar10Dataset(options()).get_batch(Split::test, torch::tensor({1L}));
  torch::Tensor expected = torch::zeros({1, 3, 32, 32});
  expected[0][1][2][5] = 1.0;
  EXPECT_TRUE(torch::equal(batch.inputs, expected));
  EXPECT_EQ(batch.targets.item<int64_t>(), 7);
}

TEST_F(CifarFolderTest, GetBatchSelectsTheIndicesAcrossFiles) {
  write_set();
  Cifar10Dataset data(options());
  runner::Batch batch = data.get_batch(Split::train, torch::tensor({9L, 0L, 3L, 9L}));
  EXPECT_TRUE(torch::equal(batch.targets, torch::tensor({9L, 0L, 3L, 9L})));
  EXPECT_TRUE(torch::allclose(batch.inputs[0], expected_bytes(9, 1)[0] / 255));
  EXPECT_TRUE(torch::allclose(batch.inputs[1], expected_bytes(0, 1)[0] / 255));
  EXPECT_TRUE(torch::allclose(batch.inputs[2], expected_bytes(3, 1)[0] / 255));
}

// Mean and population std of one channel's bytes over the training images, divided by 255.
std::pair<double, double> training_channel_statistics(int channel) {
  double sum = 0;
  double square_sum = 0;
  for (int image = 0; image < kTrainImages; ++image)
    for (int row = 0; row < 32; ++row)
      for (int col = 0; col < 32; ++col) {
        double x = pixel(image, channel, row, col) / 255.0;
        sum += x;
        square_sum += x * x;
      }
  double count = kTrainImages * 32.0 * 32.0;
  double mean = sum / count;
  return {mean, std::sqrt(square_sum / count - mean * mean)};
}

TEST_F(CifarFolderTest, NormalizesEachChannelWithTheWholeTrainingSet) {
  write_set();
  Cifar10Options o = options(true);
  o.train_size = 2;  // statistics still come from all 10 training images
  Cifar10Dataset data(o);
  torch::Tensor test = whole_split(data, Split::test).inputs;
  torch::Tensor train = whole_split(data, Split::train).inputs;
  torch::Tensor expected_test = expected_bytes(kTrainImages, kTestImages) / 255;
  torch::Tensor expected_train = expected_bytes(0, 2) / 255;
  for (int channel = 0; channel < 3; ++channel) {
    auto [mean, std] = training_channel_statistics(channel);
    expected_test.select(1, channel).sub_(mean).div_(std);
    expected_train.select(1, channel).sub_(mean).div_(std);
  }
  EXPECT_TRUE(torch::allclose(test, expected_test, 1e-4, 1e-4));
  EXPECT_TRUE(torch::allclose(train, expected_train, 1e-4, 1e-4));
}

TEST_F(CifarFolderTest, NormalizedTrainingChannelsHaveMeanZeroAndStdOne) {
  write_set();
  torch::Tensor train = whole_split(Cifar10Dataset(options(true)), Split::train).inputs;
  torch::Tensor per_channel = train.transpose(0, 1).flatten(1);  // (3, N * 1024)
  EXPECT_TRUE(torch::allclose(per_channel.mean(1), torch::zeros({3}), 0, 1e-4));
  EXPECT_TRUE(torch::allclose(per_channel.std(1, /*unbiased=*/false), torch::ones({3}), 0, 1e-4));
}

TEST_F(CifarFolderTest, NormalizingAConstantChannelGivesZeros) {
  std::vector<uint8_t> red_is_grey = records_bytes(0, kRecordsPerTrainFile);
  for (int record = 0; record < kRecordsPerTrainFile; ++record)
    std::fill_n(red_is_grey.begin() + record * kRecordBytes + 1, 1024, 128);
  for (int number = 1; number <= kTrainFiles; ++number) write(train_file(number), red_is_grey);
  write(kTestFile, records_bytes(kTrainImages, kTestImages));
  torch::Tensor train = whole_split(Cifar10Dataset(options(true)), Split::train).inputs;
  EXPECT_TRUE(torch::equal(train.select(1, 0), torch::zeros({kTrainImages, 32, 32})));
  EXPECT_GT(train.select(1, 1).abs().max().item<float>(), 0.5);
}

TEST_F(CifarFolderTest, TrainAndTestSizeKeepTheFirstSamples) {
  write_set();
  Cifar10Options o = options();
  o.train_size = 3;
  o.test_size = 1;
  Cifar10Dataset data(o);
  ASSERT_EQ(data.size(Split::train), 3);
  ASSERT_EQ(data.size(Split::test), 1);
  runner::Batch train = whole_split(data, Split::train);
  EXPECT_TRUE(torch::allclose(train.inputs, expected_bytes(0, 3) / 255));
  EXPECT_TRUE(torch::equal(train.targets, expected_labels(0, 3)));
  EXPECT_TRUE(
      torch::equal(whole_split(data, Split::test).targets, expected_labels(kTrainImages, 1)));
}

TEST_F(CifarFolderTest, TrainSizeBeyondTheSplitIsAConfigError) {
  write_set();
  Cifar10Options o = options();
  o.train_size = kTrainImages + 1;
  runner::ConfigError e = expect_error<runner::ConfigError>([&] { Cifar10Dataset data(o); });
  EXPECT_THAT(e.what(), HasSubstr("train_size = 11 is more than the 10 samples")) << e.what();
  EXPECT_THAT(e.hint(), HasSubstr("at most 10")) << e.hint();
}

TEST_F(CifarFolderTest, TestSizeBeyondTheSplitIsAConfigError) {
  write_set();
  Cifar10Options o = options();
  o.test_size = kTestImages + 1;
  runner::ConfigError e = expect_error<runner::ConfigError>([&] { Cifar10Dataset data(o); });
  EXPECT_THAT(e.what(), HasSubstr("test_size = 4 is more than the 3 samples")) << e.what();
}

TEST_F(CifarFolderTest, FindsTheFilesInTheTarballFolder) {
  write_set(kTarballFolder);
  Cifar10Dataset data(options());
  EXPECT_EQ(data.size(Split::train), kTrainImages);
  EXPECT_TRUE(torch::allclose(whole_split(data, Split::test).inputs,
                              expected_bytes(kTrainImages, kTestImages) / 255));
}

TEST_F(CifarFolderTest, InfoGivesShapeAndClassNames) {
  write_set();
  runner::DatasetInfo info = Cifar10Dataset(options()).info();
  EXPECT_EQ(info.sample_shape, (std::vector<int64_t>{3, 32, 32}));
  EXPECT_EQ(info.num_classes, 10);
  EXPECT_EQ(info.task, runner::Task::classification);
  EXPECT_EQ(info.class_names,
            (std::vector<std::string>{"airplane", "automobile", "bird", "cat", "deer", "dog",
                                      "frog", "horse", "ship", "truck"}));
}

TEST_F(CifarFolderTest, RegistersCifar10WithItsKeys) {
  write_set();
  runner::PluginBuilder plugin;
  add_cifar10_dataset(plugin);
  ASSERT_EQ(plugin.components().size(), 1u);
  const runner::Component& cifar = plugin.components()[0];
  EXPECT_EQ(cifar.kind, runner::Kind::dataset);
  EXPECT_EQ(cifar.name, "cifar10");
  EXPECT_EQ(cifar.schema.names(),
            (std::vector<std::string>{"data_dir", "train_size", "test_size", "normalize",
                                      "download", "mirrors", "md5"}));
  EXPECT_FALSE(cifar.schema.find("data_dir")->default_value.has_value());
  EXPECT_EQ(cifar.schema.find("train_size")->min, 0.0);
  EXPECT_EQ(cifar.schema.find("test_size")->min, 0.0);

  runner::Options o("dataset");
  for (const runner::KeySpec& key : cifar.schema.keys())
    if (key.default_value) o.set(key.name, *key.default_value);
  o.set("data_dir", dir_.string());
  o.set("test_size", int64_t{2});
  std::shared_ptr<runner::Dataset> data = cifar.make_dataset(o, runner::DatasetContext{});
  EXPECT_EQ(data->size(Split::train), kTrainImages);
  EXPECT_EQ(data->size(Split::test), 2);
}

}  // namespace
}  // namespace cifar10::testing
