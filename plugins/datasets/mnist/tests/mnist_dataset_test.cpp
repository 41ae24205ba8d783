// The mnist dataset on small known files: shapes, pixel values, labels, normalization, sizes,
// its registration; and on Fashion-MNIST when Debian's package is installed.
#include <gmock/gmock.h>
#include <runner/plugin.hpp>

#include <cmath>

#include "mnist_expected_set.hpp"
#include "mnist_test_files.hpp"

using ::testing::HasSubstr;

namespace mnist::testing {
namespace {

using runner::Split;

TEST_F(MnistFolderTest, LoadsPlainFiles) {
  write_set(false);
  expect_unnormalized_set(MnistDataset(options()));
}

TEST_F(MnistFolderTest, LoadsGzipFiles) {
  write_set(true);
  expect_unnormalized_set(MnistDataset(options()));
}

TEST_F(MnistFolderTest, MixesPlainAndGzipFiles) {
  write(kTrainImagesStem, images_bytes(0, kTrainImages), true);
  write(kTrainLabelsStem, labels_bytes(0, kTrainImages), false);
  write(kTestImagesStem, images_bytes(kTrainImages, kTestImages), false);
  write(kTestLabelsStem, labels_bytes(kTrainImages, kTestImages), true);
  expect_unnormalized_set(MnistDataset(options()));
}

TEST_F(MnistFolderTest, NormalizesBothSplitsWithTheTrainingStatistics) {
  write_set();
  MnistDataset data(options(true));
  torch::Tensor train = data.get_batch(Split::train, all_indices(data, Split::train)).inputs;
  torch::Tensor test = data.get_batch(Split::test, all_indices(data, Split::test)).inputs;
  EXPECT_NEAR(train.mean().item<double>(), 0.0, 1e-5);
  EXPECT_NEAR(train.std(/*unbiased=*/false).item<double>(), 1.0, 1e-5);

  torch::Tensor train_scaled = expected_bytes(0, kTrainImages).to(torch::kFloat64) / 255;
  double mean = train_scaled.mean().item<double>();
  double std = train_scaled.std(/*unbiased=*/false).item<double>();
  torch::Tensor test_expected = (expected_bytes(kTrainImages, kTestImages) / 255 - mean) / std;
  EXPECT_TRUE(torch::allclose(test, test_expected.to(torch::kFloat32), 1e-5, 1e-5));
}

TEST_F(MnistFolderTest, NormalizingAConstantSetGivesZeros) {
  std::vector<uint8_t> grey(size_t{kTrainImages} * kSide * kSide, 128);
  write(kTrainImagesStem, idx_bytes(2051, {kTrainImages, kSide, kSide}, grey));
  write(kTrainLabelsStem, labels_bytes(0, kTrainImages));
  write(kTestImagesStem, images_bytes(kTrainImages, kTestImages));
  write(kTestLabelsStem, labels_bytes(kTrainImages, kTestImages));
  MnistDataset data(options(true));
  torch::Tensor train = data.get_batch(Split::train, all_indices(data, Split::train)).inputs;
  EXPECT_TRUE(torch::equal(train, torch::zeros_like(train)));
}

TEST_F(MnistFolderTest, TrainAndTestSizeKeepTheFirstSamples) {
  write_set();
  MnistOptions o = options();
  o.train_size = 2;
  o.test_size = 1;
  MnistDataset data(o);
  ASSERT_EQ(data.size(Split::train), 2);
  ASSERT_EQ(data.size(Split::test), 1);
  runner::Batch train = data.get_batch(Split::train, torch::arange(2));
  EXPECT_TRUE(torch::allclose(train.inputs, expected_bytes(0, 2) / 255));
  EXPECT_TRUE(torch::equal(train.targets, expected_labels(0, 2)));
  runner::Batch test = data.get_batch(Split::test, torch::arange(1));
  EXPECT_TRUE(torch::equal(test.targets, expected_labels(kTrainImages, 1)));
}

TEST_F(MnistFolderTest, TrainSizeBeyondTheSetIsAConfigError) {
  write_set();
  MnistOptions o = options();
  o.train_size = kTrainImages + 1;
  std::string message = error_message<runner::ConfigError>([&] { MnistDataset data(o); });
  EXPECT_THAT(message, HasSubstr("train_size = 6")) << message;
  EXPECT_THAT(message, HasSubstr("5 samples")) << message;
}

TEST_F(MnistFolderTest, GetBatchSelectsTheIndices) {
  write_set();
  MnistDataset data(options());
  runner::Batch batch = data.get_batch(Split::train, torch::tensor({3, 0, 3}, torch::kInt64));
  EXPECT_TRUE(torch::equal(batch.targets, torch::tensor({3, 0, 3}, torch::kInt64)));
  EXPECT_TRUE(torch::allclose(batch.inputs[0], expected_bytes(3, 1)[0] / 255));
  EXPECT_TRUE(torch::allclose(batch.inputs[1], expected_bytes(0, 1)[0] / 255));
}

TEST_F(MnistFolderTest, InfoGivesShapeClassesAndDigitNames) {
  write_set();
  runner::DatasetInfo info = MnistDataset(options()).info();
  EXPECT_EQ(info.sample_shape, (std::vector<int64_t>{1, kSide, kSide}));
  EXPECT_EQ(info.num_classes, 10);
  EXPECT_EQ(info.class_names,
            (std::vector<std::string>{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}));
}

TEST_F(MnistFolderTest, AcceptsAnyImageSize) {
  write(kTrainImagesStem, images_bytes(0, kTrainImages, 32, 20));
  write(kTrainLabelsStem, labels_bytes(0, kTrainImages));
  write(kTestImagesStem, images_bytes(kTrainImages, kTestImages, 32, 20));
  write(kTestLabelsStem, labels_bytes(kTrainImages, kTestImages));
  MnistDataset data(options());
  EXPECT_EQ(data.info().sample_shape, (std::vector<int64_t>{1, 32, 20}));
  EXPECT_EQ(data.get_batch(Split::test, torch::arange(2)).inputs.sizes(),
            torch::IntArrayRef({2, 1, 32, 20}));
}

TEST_F(MnistFolderTest, RegistersMnistWithItsKeys) {
  write_set();
  runner::PluginBuilder plugin;
  add_mnist_dataset(plugin);
  ASSERT_EQ(plugin.components().size(), 1u);
  const runner::Component& mnist = plugin.components()[0];
  EXPECT_EQ(mnist.kind, runner::Kind::dataset);
  EXPECT_EQ(mnist.name, "mnist");
  EXPECT_EQ(mnist.schema.names(),
            (std::vector<std::string>{"data_dir", "train_size", "test_size", "normalize",
                                      "class_names", "download", "mirrors", "md5"}));
  EXPECT_FALSE(mnist.schema.find("data_dir")->default_value.has_value());
  EXPECT_EQ(mnist.schema.find("train_size")->min, 0.0);
  EXPECT_EQ(std::get<bool>(*mnist.schema.find("download")->default_value), false);

  runner::Options o = default_options(dir_);
  std::vector<std::string> fashion = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                      "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};
  o.set("class_names", fashion);
  std::shared_ptr<runner::Dataset> data = mnist.make_dataset(o, runner::DatasetContext{});
  EXPECT_EQ(data->info().class_names, fashion);
  EXPECT_EQ(data->size(Split::train), kTrainImages);
}

TEST_F(MnistFolderTest, ClassNamesMustNameEveryClass) {
  runner::Options o = default_options(dir_);
  o.set("class_names", std::vector<std::string>{"cat", "dog"});
  std::string message = error_message<runner::ConfigError>([&] { MnistOptions::from(o); });
  EXPECT_THAT(message, HasSubstr("class_names has 2 names")) << message;
}

TEST(FashionMnist, LoadsTheDebianPackage) {
  const std::filesystem::path dir = "/usr/share/datasets/fashion-mnist";
  if (!std::filesystem::is_directory(dir))
    GTEST_SKIP() << dir << " is missing: install Debian's dataset-fashion-mnist package";
  MnistOptions o;
  o.data_dir = dir;
  MnistDataset data(o);
  ASSERT_EQ(data.size(Split::train), 60000);
  ASSERT_EQ(data.size(Split::test), 10000);
  EXPECT_EQ(data.info().sample_shape, (std::vector<int64_t>{1, 28, 28}));
  // Fashion-MNIST is balanced: 6000 training and 1000 test images per class.
  runner::Batch train = data.get_batch(Split::train, torch::arange(60000));
  torch::Tensor test_labels = data.get_batch(Split::test, torch::arange(10000)).targets;
  EXPECT_TRUE(torch::equal(torch::bincount(train.targets), torch::full({10}, 6000, torch::kInt64)));
  EXPECT_TRUE(torch::equal(torch::bincount(test_labels), torch::full({10}, 1000, torch::kInt64)));
  EXPECT_NEAR(train.inputs.mean().item<double>(), 0.0, 1e-4);
  EXPECT_NEAR(train.inputs.std(/*unbiased=*/false).item<double>(), 1.0, 1e-4);
}

}  // namespace
}  // namespace mnist::testing
