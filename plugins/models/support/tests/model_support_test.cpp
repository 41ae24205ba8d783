// The helpers the image models share: the dataset checks and their messages, the activation
// lookup, the activation module, and the multiply-add counts against formulas.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "image_model.hpp"
#include "model_testing.hpp"

using ::testing::HasSubstr;

namespace model_support {
namespace {

using model_testing::config_error_of;
using model_testing::FakeOpLibrary;

runner::DatasetInfo classification(std::vector<int64_t> shape, int64_t classes = 10) {
  runner::DatasetInfo data;
  data.sample_shape = std::move(shape);
  data.num_classes = classes;
  return data;
}

TEST(ModelSupport, ShapeTextJoinsTheSidesWithX) {
  EXPECT_EQ(shape_text({3, 32, 32}), "3x32x32");
  EXPECT_EQ(shape_text({784}), "784");
  EXPECT_EQ(shape_text({}), "no shape");
}

TEST(ModelSupport, FixedShapesHaveSidesAllPositive) {
  EXPECT_TRUE(is_fixed_shape({3, 32, 32}));
  EXPECT_TRUE(is_fixed_shape({784}));
  EXPECT_FALSE(is_fixed_shape({}));
  EXPECT_FALSE(is_fixed_shape({3, 0, 32}));
  EXPECT_FALSE(is_fixed_shape({-1, 4}));
}

TEST(ModelSupport, RequireImagesReturnsChannelsHeightWidth) {
  ImageShape shape = require_images("m", classification({3, 32, 24}));
  EXPECT_EQ(shape.channels, 3);
  EXPECT_EQ(shape.height, 32);
  EXPECT_EQ(shape.width, 24);
}

TEST(ModelSupport, RequireImagesRefusesOtherShapesNamingModelAndShape) {
  for (std::vector<int64_t> shape : {std::vector<int64_t>{784}, {1, 28, 28, 1}, {1, 0, 28}, {}}) {
    auto error = config_error_of([&] { require_images("vgg", classification(shape)); });
    ASSERT_TRUE(error) << shape_text(shape);
    EXPECT_THAT(error->what(), HasSubstr("model vgg takes (C, H, W) images")) << error->what();
    EXPECT_THAT(error->what(), HasSubstr(shape_text(shape))) << error->what();
    EXPECT_FALSE(error->hint().empty());
  }
}

TEST(ModelSupport, RequireClassificationRefusesLanguageModelingAndNoClasses) {
  runner::DatasetInfo tokens = classification({128}, 50257);
  tokens.task = runner::Task::language_modeling;
  auto task_error = config_error_of([&] { require_classification("mlp", tokens); });
  ASSERT_TRUE(task_error);
  EXPECT_STREQ(task_error->what(),
               "model mlp is a classifier; the dataset's task is language_modeling");
  EXPECT_TRUE(config_error_of([&] { require_images("mlp", tokens); }));
  EXPECT_TRUE(config_error_of([] { require_classification("mlp", classification({784}, 0)); }));
}

TEST(ModelSupport, RequireOddKernelRefusesEvenKernels) {
  EXPECT_FALSE(config_error_of([] { require_odd_kernel("conv_stack", 3); }));
  auto error = config_error_of([] { require_odd_kernel("conv_stack", 4); });
  ASSERT_TRUE(error);
  EXPECT_STREQ(
      error->what(),
      "model conv_stack: kernel_size = 4 is even; only an odd kernel keeps the image size");
}

TEST(ModelSupport, ActivationOpComesFromTheLibraryAndTakesOneInput) {
  FakeOpLibrary ops;
  runner::ModelContext context = model_testing::context(ops, {1, 4, 4});
  EXPECT_EQ(activation_op("tanh", context), ops.tanh);
  auto unknown = config_error_of([&] { activation_op("gelu", context); });
  ASSERT_TRUE(unknown);
  EXPECT_STREQ(unknown->what(), "no op named 'gelu'");
  auto binary = config_error_of([&] { activation_op("add", context); });
  ASSERT_TRUE(binary);
  EXPECT_THAT(binary->what(), HasSubstr("takes 2 inputs")) << binary->what();
}

TEST(ModelSupport, ActivationModuleAppliesTheOpInASequential) {
  FakeOpLibrary ops;
  torch::nn::Sequential layers(torch::nn::Linear(3, 2), Activation(ops.relu));
  torch::Tensor x = torch::randn({5, 3});
  torch::Tensor expected = torch::relu(layers[0]->as<torch::nn::Linear>()->forward(x));
  EXPECT_TRUE(torch::equal(layers->forward(x), expected));
  EXPECT_EQ(ops.relu->calls, 1);
}

TEST(ModelSupport, ForwardStagesChainsTheSequentials) {
  torch::nn::Linear first(4, 3);
  torch::nn::Linear second(3, 2);
  torch::nn::ModuleList stages(torch::nn::Sequential(first, torch::nn::Functional(torch::relu)),
                               torch::nn::Sequential(second));
  torch::Tensor x = torch::randn({5, 4});
  EXPECT_TRUE(torch::equal(forward_stages(stages, x), second(torch::relu(first(x)))));
}

TEST(ModelSupport, MultiplyAddsCountEveryWeightOncePerOutput) {
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(3, 8, 5));
  EXPECT_DOUBLE_EQ(conv_multiply_adds(conv, 6, 7), 8.0 * 3 * 5 * 5 * 6 * 7);
  EXPECT_DOUBLE_EQ(linear_multiply_adds(torch::nn::Linear(20, 30)), 20.0 * 30);
}

}  // namespace
}  // namespace model_support
