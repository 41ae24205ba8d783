// The vgg model: channels per block, output shapes, parameter count and FLOPs against
// formulas (VGG-16 included), BatchNorm and dropout by key, the activation, gradients, images
// too small for the pools, the keys.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "model_testing.hpp"
#include "vgg.hpp"

using ::testing::HasSubstr;

namespace vgg {
namespace {

using model_testing::linear_parameters;

using model_testing::config_error_of;
using model_testing::FakeOpLibrary;

// A 3x3 conv with BatchNorm (no bias; BatchNorm's weight and bias) or without (a bias).
int64_t conv_parameters(int64_t in, int64_t out, bool batch_norm) {
  return out * in * 3 * 3 + (batch_norm ? 2 * out : out);
}

// width 4, blocks [1, 2], classifier_hidden 16: on 3x8x8 the classifier gets 8 x 2 x 2.
VggOptions small() {
  VggOptions options;
  options.width = 4;
  options.blocks = {1, 2};
  options.classifier_hidden = 16;
  return options;
}

int64_t small_parameters(bool batch_norm) {
  return conv_parameters(3, 4, batch_norm) + conv_parameters(4, 8, batch_norm) +
         conv_parameters(8, 8, batch_norm) + linear_parameters(int64_t{8} * 2 * 2, 16) +
         linear_parameters(16, 10);
}

TEST(Vgg, ChannelsDoubleEachBlockUpTo512) {
  EXPECT_EQ(block_channels(64, 0), 64);
  EXPECT_EQ(block_channels(64, 1), 128);
  EXPECT_EQ(block_channels(64, 3), 512);
  EXPECT_EQ(block_channels(64, 4), 512);
  EXPECT_EQ(block_channels(3, 2), 12);
  EXPECT_EQ(block_channels(3, 100), 512);
}

TEST(Vgg, OutputIsOneLogitPerClass) {
  FakeOpLibrary ops;
  Vgg model(small(), model_testing::context(ops, {3, 8, 8}, 7));
  EXPECT_EQ(model.forward(torch::randn({2, 3, 8, 8})).sizes(), torch::IntArrayRef({2, 7}));
  model.eval();
  EXPECT_EQ(model.forward(torch::randn({1, 3, 8, 8})).sizes(), torch::IntArrayRef({1, 7}));
  Vgg odd_sides(small(), model_testing::context(ops, {1, 9, 13}));
  EXPECT_EQ(odd_sides.forward(torch::randn({2, 1, 9, 13})).sizes(), torch::IntArrayRef({2, 10}));
}

TEST(Vgg, ParameterCountMatchesTheArchitectureWithAndWithoutBatchNorm) {
  FakeOpLibrary ops;
  Vgg with_bn(small(), model_testing::context(ops, {3, 8, 8}));
  EXPECT_EQ(with_bn.parameter_count(), small_parameters(true));
  EXPECT_EQ(with_bn.named_buffers().size(), 9u);  // running mean, variance, batches per BatchNorm
  VggOptions options = small();
  options.batch_norm = false;
  Vgg without_bn(options, model_testing::context(ops, {3, 8, 8}));
  EXPECT_EQ(without_bn.parameter_count(), small_parameters(false));
  EXPECT_EQ(without_bn.named_buffers().size(), 0u);
}

TEST(Vgg, DefaultIsVgg16WithItsThirteenConvs) {
  // Without BatchNorm, VGG-16's convs hold 14,714,688 parameters (torchvision's vgg16 features).
  FakeOpLibrary ops;
  VggOptions plain;
  plain.batch_norm = false;
  Vgg vgg16(plain, model_testing::context(ops, {3, 32, 32}));
  int64_t classifier = linear_parameters(512, 512) + linear_parameters(512, 10);
  EXPECT_EQ(vgg16.parameter_count(), 14714688 + classifier);
  // With it, each conv drops its bias and each BatchNorm adds two per channel.
  int64_t channels = 2 * 64 + 2 * 128 + 3 * 256 + 3 * 512 + 3 * 512;
  Vgg vgg16_bn(VggOptions{}, model_testing::context(ops, {3, 32, 32}));
  EXPECT_EQ(vgg16_bn.parameter_count(), 14714688 - channels + 2 * channels + classifier);
}

TEST(Vgg, Vgg16FlopsOn32x32AreTwiceTheMultiplyAdds) {
  // Each 3x3 conv: out x in x 9 multiply-adds at every position of its block's side.
  double block1 = (64.0 * 3 + 64 * 64) * 9 * 32 * 32;
  double block2 = (128.0 * 64 + 128 * 128) * 9 * 16 * 16;
  double block3 = (256.0 * 128 + 2 * 256 * 256) * 9 * 8 * 8;
  double block4 = (512.0 * 256 + 2 * 512 * 512) * 9 * 4 * 4;
  double block5 = (3.0 * 512 * 512) * 9 * 2 * 2;
  double linears = 512.0 * 512 + 512 * 10;
  FakeOpLibrary ops;
  Vgg model(VggOptions{}, model_testing::context(ops, {3, 32, 32}));
  double expected = 2 * (block1 + block2 + block3 + block4 + block5 + linears);
  EXPECT_DOUBLE_EQ(model.forward_flops_per_sample(), expected);
  EXPECT_DOUBLE_EQ(expected, 2 * 313463808.0);
}

TEST(Vgg, DropoutActsOnlyInTraining) {
  FakeOpLibrary ops;
  torch::Tensor images = torch::randn({4, 3, 8, 8});
  Vgg dropping(small(), model_testing::context(ops, {3, 8, 8}));
  EXPECT_FALSE(torch::equal(dropping.forward(images), dropping.forward(images)));
  dropping.eval();
  EXPECT_TRUE(torch::equal(dropping.forward(images), dropping.forward(images)));
  VggOptions options = small();
  options.dropout = 0;
  Vgg keeping(options, model_testing::context(ops, {3, 8, 8}));
  EXPECT_TRUE(torch::equal(keeping.forward(images), keeping.forward(images)));
}

TEST(Vgg, ActivationRunsAfterEachConvAndTheHiddenLayer) {
  FakeOpLibrary ops;
  VggOptions options = small();
  options.activation = "tanh";
  Vgg model(options, model_testing::context(ops, {3, 8, 8}));
  model.forward(torch::randn({2, 3, 8, 8}));
  EXPECT_EQ(ops.tanh->calls, 1 + 2 + 1);
  EXPECT_EQ(ops.relu->calls, 0);
}

TEST(Vgg, LayersAreTheBlocksAndTheClassifierAndFoldToForward) {
  FakeOpLibrary ops;
  Vgg model(small(), model_testing::context(ops, {3, 8, 8}));
  EXPECT_EQ(model_testing::expect_layers_fold_to_forward(model, torch::randn({2, 3, 8, 8})),
            small().blocks.size() + 1);
}

TEST(Vgg, GradientsReachEveryParameter) {
  FakeOpLibrary ops;
  Vgg model(small(), model_testing::context(ops, {3, 8, 8}));
  EXPECT_EQ(model_testing::parameters_without_gradient(model, torch::randn({8, 3, 8, 8}), 10),
            std::vector<std::string>{});
}

TEST(Vgg, ImagesTooSmallForThePoolsSayHowManyFit) {
  FakeOpLibrary ops;
  auto mnist = config_error_of([&] {
    Vgg(VggOptions{}, model_testing::context(ops, {1, 28, 28}));
  });
  ASSERT_TRUE(mnist);
  EXPECT_STREQ(mnist->what(),
               "model vgg ends each of its 5 blocks in a 2x2 max-pool, but 1x28x28 images fit 4 "
               "pools");
  EXPECT_EQ(mnist->hint(), "shorten blocks to 4 or fewer entries, or use larger images");
  auto narrow = config_error_of([&] { Vgg(small(), model_testing::context(ops, {3, 32, 3})); });
  ASSERT_TRUE(narrow);
  EXPECT_THAT(narrow->what(), HasSubstr("3x32x3 images fit 1 pool")) << narrow->what();
  VggOptions one_block = small();
  one_block.blocks = {1};
  auto dot = config_error_of([&] { Vgg(one_block, model_testing::context(ops, {1, 1, 1})); });
  ASSERT_TRUE(dot);
  EXPECT_EQ(dot->hint(), "use images of at least 2x2");
}

TEST(Vgg, RefusesNoBlocksAndSamplesThatAreNotImages) {
  FakeOpLibrary ops;
  VggOptions options = small();
  options.blocks = {};
  auto empty = config_error_of([&] { Vgg(options, model_testing::context(ops, {3, 8, 8})); });
  ASSERT_TRUE(empty);
  EXPECT_STREQ(empty->what(), "model vgg needs at least one block; blocks = []");
  auto flat = config_error_of([&] { Vgg(small(), model_testing::context(ops, {3072})); });
  ASSERT_TRUE(flat);
  EXPECT_THAT(flat->what(), HasSubstr("model vgg takes (C, H, W) images")) << flat->what();
}

TEST(Vgg, RegistersVggWithItsKeys) {
  runner::PluginBuilder plugin;
  add_vgg_model(plugin);
  ASSERT_EQ(plugin.components().size(), 1u);
  const runner::Component& component = plugin.components()[0];
  EXPECT_EQ(component.kind, runner::Kind::model);
  EXPECT_EQ(component.name, "vgg");
  EXPECT_EQ(component.schema.names(),
            (std::vector<std::string>{"width", "blocks", "classifier_hidden", "dropout",
                                      "batch_norm", "activation"}));
  EXPECT_EQ(std::get<std::vector<int64_t>>(*component.schema.find("blocks")->default_value),
            (std::vector<int64_t>{2, 2, 3, 3, 3}));
  EXPECT_EQ(component.schema.find("width")->max, 512.0);

  runner::Options options =
      model_testing::options_for(component.schema, {{"width", int64_t{4}},
                                                    {"blocks", std::vector<int64_t>{1, 2}},
                                                    {"classifier_hidden", int64_t{16}},
                                                    {"batch_norm", false}});
  FakeOpLibrary ops;
  std::shared_ptr<runner::Model> model =
      component.make_model(options, model_testing::context(ops, {3, 8, 8}));
  EXPECT_EQ(model->parameter_count(), small_parameters(false));
}

}  // namespace
}  // namespace vgg
