// LeNet-5 on other images than 1x28x28: the cifar variant's 3x3 convs, any channels and square
// size, the in_channels and image_size keys against the dataset, and the images refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lenet5.hpp"
#include "model_testing.hpp"

using ::testing::HasSubstr;

namespace lenet5 {
namespace {

using model_testing::conv_parameters;
using model_testing::linear_parameters;

using model_testing::config_error_of;
using model_testing::FakeOpLibrary;

// fc1, fc2, fc3 for `flat` features after the second pool and 10 classes.
int64_t classifier_parameters(int64_t flat) {
  return linear_parameters(flat, 120) + linear_parameters(120, 84) + linear_parameters(84, 10);
}

LeNet5Options cifar() {
  LeNet5Options options;
  options.variant = Variant::cifar;
  return options;
}

TEST(LeNet5Variants, SidesFollowTheConvsAndPools) {
  LeNet5Sides classic = lenet5_sides(Variant::classic, 28);  // 28 -> pool 14 -> 5x5 conv 10
  EXPECT_EQ(classic.conv1, 28);
  EXPECT_EQ(classic.conv2, 10);
  EXPECT_EQ(classic.flat, 5);
  LeNet5Sides cifar32 = lenet5_sides(Variant::cifar, 32);  // 32 -> pool 16 -> pool 8
  EXPECT_EQ(cifar32.conv1, 32);
  EXPECT_EQ(cifar32.conv2, 16);
  EXPECT_EQ(cifar32.flat, 8);
}

TEST(LeNet5Variants, CifarOn3x32x32Flattens1024Features) {
  FakeOpLibrary ops;
  LeNet5 model(cifar(), model_testing::context(ops, {3, 32, 32}));
  EXPECT_EQ(model.forward(torch::randn({2, 3, 32, 32})).sizes(), torch::IntArrayRef({2, 10}));
  int64_t expected = conv_parameters(3, 6, 3) + conv_parameters(6, 16, 3) +
                     classifier_parameters(int64_t{16} * 8 * 8);
  EXPECT_EQ(model.parameter_count(), expected);
  EXPECT_EQ(ops.fused_conv_relu->calls, 2);  // each conv with its relu
  EXPECT_EQ(ops.relu->calls, 2);             // after fc1 and fc2
}

TEST(LeNet5Variants, CifarFlopsAreTwiceTheMultiplyAdds) {
  double conv1 = 6.0 * 32 * 32 * (3 * 3 * 3);
  double conv2 = 16.0 * 16 * 16 * (6 * 3 * 3);
  double linears = 1024.0 * 120 + 120 * 84 + 84 * 10;
  FakeOpLibrary ops;
  LeNet5 model(cifar(), model_testing::context(ops, {3, 32, 32}));
  EXPECT_DOUBLE_EQ(model.forward_flops_per_sample(), 2 * (conv1 + conv2 + linears));
}

TEST(LeNet5Variants, ClassicTakesColourImagesOfOtherSizes) {
  // 32 -> 5x5 conv, padding 2: 32 -> pool 16 -> 5x5 conv 12 -> pool 6
  FakeOpLibrary ops;
  LeNet5 model(LeNet5Options{}, model_testing::context(ops, {3, 32, 32}, 5));
  EXPECT_EQ(model.forward(torch::randn({2, 3, 32, 32})).sizes(), torch::IntArrayRef({2, 5}));
  int64_t expected = conv_parameters(3, 6, 5) + conv_parameters(6, 16, 5) +
                     linear_parameters(int64_t{16} * 6 * 6, 120) + linear_parameters(120, 84) +
                     linear_parameters(84, 5);
  EXPECT_EQ(model.parameter_count(), expected);
  double conv1 = 6.0 * 32 * 32 * (3 * 5 * 5);
  double conv2 = 16.0 * 12 * 12 * (6 * 5 * 5);
  double linears = 576.0 * 120 + 120 * 84 + 84 * 5;
  EXPECT_DOUBLE_EQ(model.forward_flops_per_sample(), 2 * (conv1 + conv2 + linears));
}

TEST(LeNet5Variants, SmallestImagesFitAndSmallerOnesAreRefused) {
  // classic: ((S / 2) - 4) / 2 >= 1 needs S >= 12; cifar: S / 4 >= 1 needs S >= 4.
  FakeOpLibrary ops;
  for (auto [options, smallest] : {std::pair{LeNet5Options{}, 12}, std::pair{cifar(), 4}}) {
    LeNet5 model(options, model_testing::context(ops, {1, smallest, smallest}));
    EXPECT_EQ(model.forward(torch::randn({2, 1, smallest, smallest})).sizes(),
              torch::IntArrayRef({2, 10}));
    int64_t below = smallest - 1;
    auto error = config_error_of([&, options = options] {
      LeNet5(options, model_testing::context(ops, {1, below, below}));
    });
    ASSERT_TRUE(error) << below;
    std::string minimum = std::to_string(smallest);
    EXPECT_THAT(error->what(), HasSubstr("needs images of at least " + minimum + "x" + minimum))
        << error->what();
    std::string given = std::to_string(below);
    EXPECT_THAT(error->what(), HasSubstr("1x" + given + "x" + given)) << error->what();
  }
}

TEST(LeNet5Variants, RefusesNonSquareImagesNamingTheShape) {
  FakeOpLibrary ops;
  auto error = config_error_of([&] { LeNet5(cifar(), model_testing::context(ops, {3, 32, 24})); });
  ASSERT_TRUE(error);
  EXPECT_STREQ(error->what(), "model lenet5 takes square images; the dataset gives 3x32x24");
}

TEST(LeNet5Variants, InChannelsMustBeTheDatasetsWhenSet) {
  FakeOpLibrary ops;
  LeNet5Options options = cifar();
  options.in_channels = 1;
  auto error = config_error_of([&] { LeNet5(options, model_testing::context(ops, {3, 32, 32})); });
  ASSERT_TRUE(error);
  EXPECT_STREQ(error->what(),
               "model lenet5: in_channels = 1 but the dataset's samples are 3x32x32 (3 channels)");
  EXPECT_EQ(error->hint(), "set in_channels = 3, or 0 to take it from the dataset");
  options.in_channels = 3;
  EXPECT_FALSE(config_error_of([&] { LeNet5(options, model_testing::context(ops, {3, 32, 32})); }));
}

TEST(LeNet5Variants, ImageSizeMustBeTheDatasetsWhenSet) {
  FakeOpLibrary ops;
  LeNet5Options options;
  options.image_size = 28;
  auto error = config_error_of([&] { LeNet5(options, model_testing::context(ops, {3, 32, 32})); });
  ASSERT_TRUE(error);
  EXPECT_STREQ(
      error->what(),
      "model lenet5: image_size = 28 but the dataset's samples are 3x32x32 (32x32 images)");
  options.image_size = 32;
  EXPECT_FALSE(config_error_of([&] { LeNet5(options, model_testing::context(ops, {3, 32, 32})); }));
}

TEST(LeNet5Variants, RefusesDatasetsThatAreNotImageClassification) {
  FakeOpLibrary ops;
  runner::ModelContext tokens = model_testing::context(ops, {64}, 100);
  tokens.data.task = runner::Task::language_modeling;
  EXPECT_TRUE(config_error_of([&] { LeNet5(LeNet5Options{}, tokens); }));
  auto flat = config_error_of([&] { LeNet5(cifar(), model_testing::context(ops, {784})); });
  ASSERT_TRUE(flat);
  EXPECT_THAT(flat->what(), HasSubstr("model lenet5 takes (C, H, W) images")) << flat->what();
}

TEST(LeNet5Variants, CifarGradientsReachEveryParameter) {
  FakeOpLibrary ops;
  LeNet5 model(cifar(), model_testing::context(ops, {3, 16, 16}));
  EXPECT_EQ(model_testing::parameters_without_gradient(model, torch::randn({8, 3, 16, 16}), 10),
            std::vector<std::string>{});
}

TEST(LeNet5Variants, KeysSelectTheVariantThroughTheFactory) {
  runner::PluginBuilder plugin;
  add_lenet5_model(plugin);
  const runner::Component& component = plugin.components().at(0);
  runner::Options options =
      model_testing::options_for(component.schema, {{"variant", std::string("cifar")},
                                                    {"in_channels", int64_t{3}},
                                                    {"image_size", int64_t{32}}});
  FakeOpLibrary ops;
  std::shared_ptr<runner::Model> model =
      component.make_model(options, model_testing::context(ops, {3, 32, 32}));
  EXPECT_EQ(model->parameter_count(),
            conv_parameters(3, 6, 3) + conv_parameters(6, 16, 3) + classifier_parameters(1024));
}

}  // namespace
}  // namespace lenet5
