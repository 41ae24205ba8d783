// The conv_stack model: output shapes, parameter count and FLOPs against formulas for a
// shallow and a deep stack, one stage per layer, the activation, gradients, refused inputs,
// the keys.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "conv_stack.hpp"
#include "model_testing.hpp"

using ::testing::HasSubstr;

namespace conv_stack {
namespace {

using model_testing::conv_parameters;
using model_testing::linear_parameters;

using model_testing::config_error_of;
using model_testing::FakeOpLibrary;

ConvStackOptions stack(int64_t layers, int64_t channels, int64_t kernel_size = 3) {
  ConvStackOptions options;
  options.layers = layers;
  options.channels = channels;
  options.kernel_size = kernel_size;
  return options;
}

TEST(ConvStack, DefaultTwoLayersMatchTheFormulas) {
  FakeOpLibrary ops;
  ConvStack model(ConvStackOptions{}, model_testing::context(ops, {1, 28, 28}));
  EXPECT_EQ(model.forward(torch::randn({3, 1, 28, 28})).sizes(), torch::IntArrayRef({3, 10}));
  EXPECT_EQ(model.parameter_count(), conv_parameters(1, 32, 3) + conv_parameters(32, 32, 3) +
                                         linear_parameters(int64_t{32} * 28 * 28, 10));
  double convs = 32.0 * 28 * 28 * (1 * 3 * 3) + 32.0 * 28 * 28 * (32 * 3 * 3);
  double linear = 32.0 * 28 * 28 * 10;
  EXPECT_DOUBLE_EQ(model.forward_flops_per_sample(), 2 * (convs + linear));
}

TEST(ConvStack, TenLayersMatchTheFormulas) {
  FakeOpLibrary ops;
  ConvStack model(stack(10, 4), model_testing::context(ops, {3, 8, 8}, 5));
  EXPECT_EQ(model.forward(torch::randn({2, 3, 8, 8})).sizes(), torch::IntArrayRef({2, 5}));
  EXPECT_EQ(ops.relu->calls, 10);
  EXPECT_EQ(model.parameter_count(), conv_parameters(3, 4, 3) + 9 * conv_parameters(4, 4, 3) +
                                         linear_parameters(int64_t{4} * 8 * 8, 5));
  double convs = 4.0 * 8 * 8 * (3 * 3 * 3) + 9 * (4.0 * 8 * 8 * (4 * 3 * 3));
  double linear = 4.0 * 8 * 8 * 5;
  EXPECT_DOUBLE_EQ(model.forward_flops_per_sample(), 2 * (convs + linear));
}

TEST(ConvStack, LargerKernelsKeepTheImageSize) {
  FakeOpLibrary ops;
  ConvStack model(stack(1, 2, 5), model_testing::context(ops, {1, 7, 6}));
  EXPECT_EQ(model.forward(torch::randn({2, 1, 7, 6})).sizes(), torch::IntArrayRef({2, 10}));
  EXPECT_EQ(model.parameter_count(),
            conv_parameters(1, 2, 5) + linear_parameters(int64_t{2} * 7 * 6, 10));
  EXPECT_DOUBLE_EQ(model.forward_flops_per_sample(),
                   2 * (2.0 * 7 * 6 * (1 * 5 * 5) + 2.0 * 7 * 6 * 10));
}

TEST(ConvStack, EachLayerIsAStageAndTheClassifierTheLast) {
  FakeOpLibrary ops;
  ConvStack model(stack(3, 2), model_testing::context(ops, {1, 4, 4}));
  std::shared_ptr<torch::nn::Module> stages = model.named_children()["stages"];
  EXPECT_EQ(stages->as<torch::nn::ModuleList>()->size(), 4u);
  EXPECT_EQ(model.named_parameters().size(), 2u * 3 + 2);  // a weight and a bias per layer
}

TEST(ConvStack, LayersAreTheConvLayersAndTheClassifierAndFoldToForward) {
  FakeOpLibrary ops;
  ConvStack model(stack(3, 2), model_testing::context(ops, {1, 4, 4}));
  EXPECT_EQ(model_testing::expect_layers_fold_to_forward(model, torch::randn({2, 1, 4, 4})), 4u);
}

TEST(ConvStack, ActivationIsTheOpOfThatName) {
  FakeOpLibrary ops;
  ConvStackOptions options = stack(3, 2);
  options.activation = "tanh";
  ConvStack model(options, model_testing::context(ops, {1, 4, 4}));
  model.forward(torch::randn({2, 1, 4, 4}));
  EXPECT_EQ(ops.tanh->calls, 3);
  EXPECT_EQ(ops.relu->calls, 0);
}

TEST(ConvStack, FusedRunsEveryLayerAsTheFusedOpWithTheSameResult) {
  FakeOpLibrary ops;
  ConvStackOptions fused_options = stack(3, 4, 5);
  fused_options.fused = true;
  torch::manual_seed(1);
  ConvStack fused(fused_options, model_testing::context(ops, {2, 6, 6}));
  torch::manual_seed(1);
  ConvStack plain(stack(3, 4, 5), model_testing::context(ops, {2, 6, 6}));
  torch::Tensor images = torch::randn({2, 2, 6, 6});
  torch::Tensor fused_out = fused.forward(images);
  EXPECT_EQ(ops.fused_conv_relu->calls, 3);
  EXPECT_EQ(ops.relu->calls, 0);
  EXPECT_TRUE(torch::allclose(fused_out, plain.forward(images)));
  EXPECT_EQ(fused.parameter_count(), plain.parameter_count());
}

TEST(ConvStack, FusedNeedsRelu) {
  FakeOpLibrary ops;
  ConvStackOptions options = stack(2, 4);
  options.fused = true;
  options.activation = "tanh";
  auto error = config_error_of([&] { ConvStack(options, model_testing::context(ops, {1, 4, 4})); });
  ASSERT_TRUE(error);
  EXPECT_THAT(error->what(), HasSubstr("fused = true")) << error->what();
}

TEST(ConvStack, GradientsReachEveryParameter) {
  FakeOpLibrary ops;
  ConvStack model(stack(3, 4), model_testing::context(ops, {3, 6, 6}));
  EXPECT_EQ(model_testing::parameters_without_gradient(model, torch::randn({8, 3, 6, 6}), 10),
            std::vector<std::string>{});
}

TEST(ConvStack, RefusesEvenKernelsAndSamplesThatAreNotImages) {
  FakeOpLibrary ops;
  auto even = config_error_of([&] {
    ConvStack(stack(2, 4, 2), model_testing::context(ops, {1, 8, 8}));
  });
  ASSERT_TRUE(even);
  EXPECT_THAT(even->what(), HasSubstr("model conv_stack: kernel_size = 2 is even")) << even->what();
  auto flat = config_error_of([&] { ConvStack(stack(2, 4), model_testing::context(ops, {64})); });
  ASSERT_TRUE(flat);
  EXPECT_STREQ(flat->what(), "model conv_stack takes (C, H, W) images; the dataset gives 64");
  runner::ModelContext tokens = model_testing::context(ops, {1, 8, 8});
  tokens.data.task = runner::Task::language_modeling;
  EXPECT_TRUE(config_error_of([&] { ConvStack(stack(2, 4), tokens); }));
}

TEST(ConvStack, RegistersConvStackWithItsKeys) {
  runner::PluginBuilder plugin;
  add_conv_stack_model(plugin);
  ASSERT_EQ(plugin.components().size(), 1u);
  const runner::Component& component = plugin.components()[0];
  EXPECT_EQ(component.kind, runner::Kind::model);
  EXPECT_EQ(component.name, "conv_stack");
  EXPECT_EQ(component.schema.names(),
            (std::vector<std::string>{"layers", "channels", "kernel_size", "activation", "fused"}));
  EXPECT_EQ(component.schema.find("layers")->min, 1.0);

  runner::Options options = model_testing::options_for(
      component.schema, {{"layers", int64_t{10}}, {"channels", int64_t{2}}});
  FakeOpLibrary ops;
  std::shared_ptr<runner::Model> model =
      component.make_model(options, model_testing::context(ops, {1, 4, 4}));
  EXPECT_EQ(model->parameter_count(), conv_parameters(1, 2, 3) + 9 * conv_parameters(2, 2, 3) +
                                          linear_parameters(int64_t{2} * 4 * 4, 10));
}

}  // namespace
}  // namespace conv_stack
