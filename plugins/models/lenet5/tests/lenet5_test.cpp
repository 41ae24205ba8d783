// LeNet-5, classic variant on 1x28x28: output shape, parameter count and FLOPs against
// formulas written from the architecture, the activation taken from the op library by name,
// the keys. lenet5_variants_test.cpp covers other image sizes and the cifar variant.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <runner/errors.hpp>
#include <runner/model_check.hpp>
#include <runner_testing/error_message.hpp>

#include "lenet5.hpp"
#include "model_testing.hpp"

using ::testing::HasSubstr;

namespace lenet5 {
namespace {

using model_testing::conv_parameters;
using model_testing::linear_parameters;

using model_testing::FakeOpLibrary;

runner::ModelContext context(const FakeOpLibrary& ops, int64_t classes = 10) {
  return model_testing::context(ops, {1, 28, 28}, classes);
}

// A model built after seeding, so two of them start from the same weights.
std::shared_ptr<LeNet5> seeded_model(const LeNet5Options& options, const FakeOpLibrary& ops) {
  torch::manual_seed(7);
  return std::make_shared<LeNet5>(options, context(ops));
}

// LibTorch's path: its max pool, and each conv apart from its relu.
LeNet5Options libtorch_path() {
  LeNet5Options options;
  options.pool = "max";
  options.fused = false;
  return options;
}

TEST(LeNet5, PassesTheSdksModelCheckInEveryWayOfRunning) {
  FakeOpLibrary ops;
  for (const LeNet5Options& options : {LeNet5Options{}, libtorch_path()}) {
    LeNet5 model(options, context(ops));
    const runner::ModelCheck check = runner::check_model(model, context(ops).data);
    EXPECT_TRUE(check.ok()) << check.report();
  }
}

TEST(LeNet5, OutputIsOneLogitPerClass) {
  FakeOpLibrary ops;
  LeNet5 ten(LeNet5Options{}, context(ops));
  EXPECT_EQ(ten.forward(torch::randn({3, 1, 28, 28})).sizes(), torch::IntArrayRef({3, 10}));
  LeNet5 seven(LeNet5Options{}, context(ops, 7));
  EXPECT_EQ(seven.forward(torch::randn({2, 1, 28, 28})).sizes(), torch::IntArrayRef({2, 7}));
}

TEST(LeNet5, ParameterCountMatchesTheArchitecture) {
  int64_t expected = conv_parameters(1, 6, 5) + conv_parameters(6, 16, 5) +
                     linear_parameters(int64_t{16} * 5 * 5, 120) + linear_parameters(120, 84) +
                     linear_parameters(84, 10);
  ASSERT_EQ(expected, 61706);
  FakeOpLibrary ops;
  LeNet5 model(LeNet5Options{}, context(ops));
  EXPECT_EQ(model.parameter_count(), expected);
  EXPECT_EQ(model.named_parameters().size(), 10u);  // a weight and a bias per layer
}

TEST(LeNet5, FlopsAreTwiceTheMultiplyAddsOfConvsAndLinears) {
  // conv: out_channels x out_side^2 outputs, each in_channels x 5 x 5 multiply-adds.
  double conv1 = 6.0 * 28 * 28 * (1 * 5 * 5);
  double conv2 = 16.0 * 10 * 10 * (6 * 5 * 5);
  double linears = 400.0 * 120 + 120 * 84 + 84 * 10;
  FakeOpLibrary ops;
  LeNet5 model(LeNet5Options{}, context(ops));
  EXPECT_DOUBLE_EQ(model.forward_flops_per_sample(), 2 * (conv1 + conv2 + linears));
  EXPECT_DOUBLE_EQ(model.forward_flops_per_sample(), 833040.0);
}

TEST(LeNet5, ActivationComesFromTheOpLibraryByName) {
  FakeOpLibrary ops;
  torch::Tensor images = torch::randn({4, 1, 28, 28});
  LeNet5Options relu_options = libtorch_path();
  torch::Tensor with_relu = seeded_model(relu_options, ops)->forward(images);
  EXPECT_EQ(ops.relu->calls, 4);  // after conv1, conv2, fc1, fc2
  EXPECT_EQ(ops.tanh->calls, 0);

  LeNet5Options tanh_options;
  tanh_options.activation = "tanh";
  torch::Tensor with_tanh = seeded_model(tanh_options, ops)->forward(images);
  EXPECT_EQ(ops.tanh->calls, 4);
  EXPECT_EQ(ops.relu->calls, 4);
  EXPECT_FALSE(torch::allclose(with_relu, with_tanh));
}

TEST(LeNet5, PoolKeyChangesThePooling) {
  FakeOpLibrary ops;
  torch::Tensor images = torch::randn({2, 1, 28, 28});
  LeNet5Options max_options = libtorch_path();
  LeNet5Options avg_options = libtorch_path();
  avg_options.pool = "avg";
  torch::Tensor with_max = seeded_model(max_options, ops)->forward(images);
  torch::Tensor with_avg = seeded_model(avg_options, ops)->forward(images);
  EXPECT_TRUE(torch::equal(with_max, seeded_model(max_options, ops)->forward(images)));
  EXPECT_FALSE(torch::allclose(with_max, with_avg));
}

TEST(LeNet5, PoolCanBeAnOpByName) {
  FakeOpLibrary ops;
  torch::Tensor images = torch::randn({2, 1, 28, 28});
  LeNet5Options op_options = libtorch_path();
  op_options.pool = "max_pool2d";
  torch::Tensor with_op = seeded_model(op_options, ops)->forward(images);
  EXPECT_EQ(ops.max_pool2d->calls, 2);  // after conv1 and conv2
  EXPECT_TRUE(torch::allclose(with_op, seeded_model(libtorch_path(), ops)->forward(images)));
}

TEST(LeNet5, UnknownPoolOpPropagatesTheLibrarysConfigError) {
  FakeOpLibrary ops;
  LeNet5Options options;
  options.pool = "min_pool";
  std::optional<runner::ConfigError> error =
      model_testing::config_error_of([&] { LeNet5 model(options, context(ops)); });
  ASSERT_TRUE(error);
  EXPECT_STREQ(error->what(), "no op named 'min_pool'");
}

TEST(LeNet5, FusedRunsEachConvAndReluAsTheFusedOp) {
  FakeOpLibrary ops;
  torch::Tensor images = torch::randn({3, 1, 28, 28});
  LeNet5Options fused_options = libtorch_path();
  fused_options.fused = true;
  torch::Tensor fused = seeded_model(fused_options, ops)->forward(images);
  EXPECT_EQ(ops.fused_conv_relu->calls, 2);  // conv1 and conv2
  EXPECT_EQ(ops.relu->calls, 2);             // fc1 and fc2 only
  EXPECT_TRUE(torch::allclose(fused, seeded_model(libtorch_path(), ops)->forward(images)));
}

TEST(LeNet5, TheDefaultsAreTheOpsAndComputeWhatLibTorchsPathDoes) {
  FakeOpLibrary ops;
  torch::Tensor images = torch::randn({3, 1, 28, 28});
  torch::Tensor fast = seeded_model(LeNet5Options{}, ops)->forward(images);
  EXPECT_EQ(ops.fused_conv_relu->calls, 2);
  EXPECT_EQ(ops.max_pool2d->calls, 2);
  EXPECT_TRUE(torch::allclose(fast, seeded_model(libtorch_path(), ops)->forward(images)));
  const LeNet5Options resolved = LeNet5Options::from(model_testing::options_for(lenet5_schema()));
  EXPECT_EQ(resolved.pool, "max_pool2d");
  EXPECT_TRUE(resolved.fused);
}

// Every key reaches its member, the variant as its enum; unset keys give LeNet5Options{}.
TEST(LeNet5, EachKeyIsReadIntoItsOptionsMember) {
  const LeNet5Options defaults = LeNet5Options::from(model_testing::options_for(lenet5_schema()));
  EXPECT_EQ(defaults.activation, LeNet5Options{}.activation);
  EXPECT_EQ(defaults.variant, Variant::classic);
  EXPECT_EQ(defaults.in_channels, 0);
  const LeNet5Options set = LeNet5Options::from(
      model_testing::options_for(lenet5_schema(), {{"activation", std::string("tanh")},
                                                   {"pool", std::string("avg")},
                                                   {"fused", false},
                                                   {"variant", std::string("cifar")},
                                                   {"in_channels", int64_t{3}},
                                                   {"image_size", int64_t{32}}}));
  EXPECT_EQ(set.activation, "tanh");
  EXPECT_EQ(set.pool, "avg");
  EXPECT_FALSE(set.fused);
  EXPECT_EQ(set.variant, Variant::cifar);
  EXPECT_EQ(set.in_channels, 3);
  EXPECT_EQ(set.image_size, 32);
}

// Fusion is relu's: another activation runs after a plain conv, fused key or not.
TEST(LeNet5, AnotherActivationRunsApartFromTheConv) {
  FakeOpLibrary ops;
  LeNet5Options options;
  options.activation = "tanh";
  seeded_model(options, ops)->forward(torch::randn({2, 1, 28, 28}));
  EXPECT_EQ(ops.fused_conv_relu->calls, 0);
  EXPECT_EQ(ops.tanh->calls, 4);
}

TEST(LeNet5, UnknownActivationPropagatesTheLibrarysConfigError) {
  FakeOpLibrary ops;
  LeNet5Options options;
  options.activation = "gelu";
  try {
    LeNet5 model(options, context(ops));
    ADD_FAILURE() << "built a model with an unknown activation";
  } catch (const runner::ConfigError& e) {
    EXPECT_STREQ(e.what(), "no op named 'gelu'");
  }
}

TEST(LeNet5, RefusesAnActivationOfTwoInputs) {
  FakeOpLibrary ops;
  LeNet5Options options;
  options.activation = "add";
  const std::string message = runner::testing::message_of<runner::ConfigError>(
      [&] { LeNet5 model(options, context(ops)); });
  EXPECT_THAT(message, HasSubstr("activation = \"add\" takes 2 inputs")) << message;
}

TEST(LeNet5, GradientsReachEveryParameter) {
  FakeOpLibrary ops;
  LeNet5 model(LeNet5Options{}, context(ops));
  torch::Tensor outputs = model.forward(torch::randn({8, 1, 28, 28}));
  model.loss(outputs, torch::randint(10, {8}, torch::kInt64)).backward();
  for (const auto& p : model.named_parameters()) {
    ASSERT_TRUE(p.value().grad().defined()) << p.key();
    EXPECT_GT(p.value().grad().abs().sum().item<double>(), 0.0) << p.key();
  }
}

TEST(LeNet5, RegistersLenet5WithItsKeys) {
  runner::PluginBuilder plugin;
  add_lenet5_model(plugin);
  ASSERT_EQ(plugin.components().size(), 1u);
  const runner::Component& component = plugin.components()[0];
  EXPECT_EQ(component.kind, runner::Kind::model);
  EXPECT_EQ(component.name, "lenet5");
  EXPECT_EQ(component.schema.names(),
            (std::vector<std::string>{"activation", "pool", "fused", "variant", "in_channels",
                                      "image_size"}));
  EXPECT_TRUE(component.schema.find("pool")->choices.empty());  // max, avg or any op
  EXPECT_EQ(component.schema.find("variant")->choices,
            (std::vector<std::string>{"classic", "cifar"}));

  runner::Options options = model_testing::options_for(
      component.schema, {{"activation", std::string("tanh")}, {"pool", std::string("avg")}});
  FakeOpLibrary ops;
  std::shared_ptr<runner::Model> model = component.make_model(options, context(ops));
  model->forward(torch::randn({1, 1, 28, 28}));
  EXPECT_EQ(ops.tanh->calls, 4);
  EXPECT_EQ(model->parameter_count(), 61706);
}

}  // namespace
}  // namespace lenet5
