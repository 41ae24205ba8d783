// The simple_conv model: output shapes, parameter count and FLOPs against formulas, the
// kernel size keeping the image size, the activation, gradients, refused inputs, the keys.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "model_testing.hpp"
#include "simple_conv.hpp"

using ::testing::HasSubstr;

namespace simple_conv {
namespace {

using model_testing::conv_parameters;
using model_testing::linear_parameters;

using model_testing::config_error_of;
using model_testing::FakeOpLibrary;

SimpleConvOptions small(int64_t kernel_size = 3) {
  SimpleConvOptions options;
  options.channels = 4;
  options.kernel_size = kernel_size;
  options.hidden = 8;
  return options;
}

TEST(SimpleConv, OutputIsOneLogitPerClass) {
  FakeOpLibrary ops;
  SimpleConv grey(small(), model_testing::context(ops, {1, 28, 28}));
  EXPECT_EQ(grey.forward(torch::randn({3, 1, 28, 28})).sizes(), torch::IntArrayRef({3, 10}));
  SimpleConv odd_sides(small(), model_testing::context(ops, {3, 9, 7}, 5));
  EXPECT_EQ(odd_sides.forward(torch::randn({2, 3, 9, 7})).sizes(), torch::IntArrayRef({2, 5}));
  EXPECT_EQ(odd_sides.parameter_count(), conv_parameters(3, 4, 3) +
                                             linear_parameters(int64_t{4} * 4 * 3, 8) +
                                             linear_parameters(8, 5));
}

TEST(SimpleConv, DefaultParameterCountAndFlopsMatchTheFormulas) {
  // 1x28x28: conv 3x3 keeps 28x28, the pool gives 32 x 14 x 14 = 6272 features.
  FakeOpLibrary ops;
  SimpleConv model(SimpleConvOptions{}, model_testing::context(ops, {1, 28, 28}));
  EXPECT_EQ(model.parameter_count(),
            conv_parameters(1, 32, 3) + linear_parameters(6272, 128) + linear_parameters(128, 10));
  double conv = 32.0 * 28 * 28 * (1 * 3 * 3);
  double linears = 6272.0 * 128 + 128 * 10;
  EXPECT_DOUBLE_EQ(model.forward_flops_per_sample(), 2 * (conv + linears));
}

TEST(SimpleConv, LargerKernelsKeepTheImageSize) {
  FakeOpLibrary ops;
  SimpleConv model(small(5), model_testing::context(ops, {3, 8, 8}));
  EXPECT_EQ(model.forward(torch::randn({2, 3, 8, 8})).sizes(), torch::IntArrayRef({2, 10}));
  EXPECT_EQ(model.parameter_count(), conv_parameters(3, 4, 5) +
                                         linear_parameters(int64_t{4} * 4 * 4, 8) +
                                         linear_parameters(8, 10));
  double conv = 4.0 * 8 * 8 * (3 * 5 * 5);
  double linears = 64.0 * 8 + 8 * 10;
  EXPECT_DOUBLE_EQ(model.forward_flops_per_sample(), 2 * (conv + linears));
}

TEST(SimpleConv, ActivationRunsAfterTheConvAndTheHiddenLayer) {
  FakeOpLibrary ops;
  SimpleConvOptions options = small();
  options.activation = "tanh";
  SimpleConv model(options, model_testing::context(ops, {1, 6, 6}));
  model.forward(torch::randn({2, 1, 6, 6}));
  EXPECT_EQ(ops.tanh->calls, 2);
  EXPECT_EQ(ops.relu->calls, 0);
}

TEST(SimpleConv, GradientsReachEveryParameter) {
  FakeOpLibrary ops;
  SimpleConv model(small(), model_testing::context(ops, {3, 8, 8}));
  EXPECT_EQ(model_testing::parameters_without_gradient(model, torch::randn({8, 3, 8, 8}), 10),
            std::vector<std::string>{});
}

TEST(SimpleConv, RefusesEvenKernelsImagesTooSmallToPoolAndFlatSamples) {
  FakeOpLibrary ops;
  auto even = config_error_of([&] {
    SimpleConv(small(4), model_testing::context(ops, {1, 8, 8}));
  });
  ASSERT_TRUE(even);
  EXPECT_THAT(even->what(), HasSubstr("kernel_size = 4 is even")) << even->what();
  auto thin = config_error_of([&] { SimpleConv(small(), model_testing::context(ops, {1, 1, 8})); });
  ASSERT_TRUE(thin);
  EXPECT_STREQ(thin->what(),
               "model simple_conv needs images of at least 2x2 for its 2x2 max-pool; the dataset "
               "gives 1x1x8");
  auto flat = config_error_of([&] { SimpleConv(small(), model_testing::context(ops, {784})); });
  ASSERT_TRUE(flat);
  EXPECT_THAT(flat->what(), HasSubstr("model simple_conv takes (C, H, W) images")) << flat->what();
}

TEST(SimpleConv, RegistersSimpleConvWithItsKeys) {
  runner::PluginBuilder plugin;
  add_simple_conv_model(plugin);
  ASSERT_EQ(plugin.components().size(), 1u);
  const runner::Component& component = plugin.components()[0];
  EXPECT_EQ(component.kind, runner::Kind::model);
  EXPECT_EQ(component.name, "simple_conv");
  EXPECT_EQ(component.schema.names(),
            (std::vector<std::string>{"channels", "kernel_size", "hidden", "activation"}));

  runner::Options options = model_testing::options_for(
      component.schema, {{"channels", int64_t{2}}, {"hidden", int64_t{6}}});
  FakeOpLibrary ops;
  std::shared_ptr<runner::Model> model =
      component.make_model(options, model_testing::context(ops, {1, 4, 4}));
  EXPECT_EQ(model->parameter_count(), conv_parameters(1, 2, 3) +
                                          linear_parameters(int64_t{2} * 2 * 2, 6) +
                                          linear_parameters(6, 10));
}

}  // namespace
}  // namespace simple_conv
