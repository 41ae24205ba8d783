// The mlp model: output shapes, parameter count and FLOPs against formulas, the hidden list
// (empty included), the activation between layers, gradients, the datasets it refuses, the keys.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "mlp.hpp"
#include "model_testing.hpp"

using ::testing::HasSubstr;

namespace mlp {
namespace {

using model_testing::linear_parameters;

using model_testing::config_error_of;
using model_testing::FakeOpLibrary;

MlpOptions with_hidden(std::vector<int64_t> hidden) {
  MlpOptions options;
  options.hidden = std::move(hidden);
  return options;
}

TEST(Mlp, OutputIsOneLogitPerClassForAnySampleShape) {
  FakeOpLibrary ops;
  Mlp images(with_hidden({16}), model_testing::context(ops, {1, 28, 28}));
  EXPECT_EQ(images.forward(torch::randn({3, 1, 28, 28})).sizes(), torch::IntArrayRef({3, 10}));
  Mlp vectors(with_hidden({16}), model_testing::context(ops, {20}, 4));
  EXPECT_EQ(vectors.forward(torch::randn({2, 20})).sizes(), torch::IntArrayRef({2, 4}));
}

TEST(Mlp, DefaultParameterCountAndFlopsMatchTheFormulas) {
  FakeOpLibrary ops;
  Mlp model(MlpOptions{}, model_testing::context(ops, {1, 28, 28}));
  EXPECT_EQ(model.parameter_count(),
            linear_parameters(784, 512) + linear_parameters(512, 256) + linear_parameters(256, 10));
  EXPECT_DOUBLE_EQ(model.forward_flops_per_sample(), 2.0 * (784 * 512 + 512 * 256 + 256 * 10));
}

TEST(Mlp, EmptyHiddenListIsOneLinearLayer) {
  FakeOpLibrary ops;
  Mlp model(with_hidden({}), model_testing::context(ops, {3, 8, 8}));
  EXPECT_EQ(model.parameter_count(), linear_parameters(int64_t{3} * 8 * 8, 10));
  EXPECT_DOUBLE_EQ(model.forward_flops_per_sample(), 2.0 * 192 * 10);
  torch::Tensor images = torch::randn({2, 3, 8, 8});
  EXPECT_EQ(model.forward(images).sizes(), torch::IntArrayRef({2, 10}));
  EXPECT_EQ(ops.relu->calls, 0);
}

TEST(Mlp, ActivationRunsAfterEachHiddenLayer) {
  FakeOpLibrary ops;
  MlpOptions options = with_hidden({8, 8, 8});
  options.activation = "tanh";
  Mlp model(options, model_testing::context(ops, {12}));
  model.forward(torch::randn({2, 12}));
  EXPECT_EQ(ops.tanh->calls, 3);
  EXPECT_EQ(ops.relu->calls, 0);
}

TEST(Mlp, GradientsReachEveryParameter) {
  FakeOpLibrary ops;
  Mlp model(with_hidden({16, 8}), model_testing::context(ops, {1, 8, 8}));
  EXPECT_EQ(model_testing::parameters_without_gradient(model, torch::randn({8, 1, 8, 8}), 10),
            std::vector<std::string>{});
}

TEST(Mlp, RefusesDatasetsWithoutAFixedShapeOrClasses) {
  FakeOpLibrary ops;
  auto shapeless = config_error_of([&] { Mlp(MlpOptions{}, model_testing::context(ops, {})); });
  ASSERT_TRUE(shapeless);
  EXPECT_STREQ(shapeless->what(),
               "model mlp takes samples of a fixed shape; the dataset gives no shape");
  runner::ModelContext tokens = model_testing::context(ops, {64}, 100);
  tokens.data.task = runner::Task::language_modeling;
  auto task = config_error_of([&] { Mlp(MlpOptions{}, tokens); });
  ASSERT_TRUE(task);
  EXPECT_THAT(task->what(), HasSubstr("model mlp is a classifier")) << task->what();
}

TEST(Mlp, RefusesUnknownActivationsAndOpsOfTwoInputs) {
  FakeOpLibrary ops;
  MlpOptions options;
  options.activation = "gelu";
  auto unknown = config_error_of([&] { Mlp(options, model_testing::context(ops, {4})); });
  ASSERT_TRUE(unknown);
  EXPECT_STREQ(unknown->what(), "no op named 'gelu'");
  options.activation = "add";
  EXPECT_TRUE(config_error_of([&] { Mlp(options, model_testing::context(ops, {4})); }));
}

TEST(Mlp, RegistersMlpWithItsKeys) {
  runner::PluginBuilder plugin;
  add_mlp_model(plugin);
  ASSERT_EQ(plugin.components().size(), 1u);
  const runner::Component& component = plugin.components()[0];
  EXPECT_EQ(component.kind, runner::Kind::model);
  EXPECT_EQ(component.name, "mlp");
  EXPECT_EQ(component.schema.names(), (std::vector<std::string>{"hidden", "activation"}));
  const runner::KeySpec* hidden = component.schema.find("hidden");
  EXPECT_EQ(hidden->type, runner::KeyType::integer_list);
  EXPECT_EQ(std::get<std::vector<int64_t>>(*hidden->default_value),
            (std::vector<int64_t>{512, 256}));
  EXPECT_EQ(hidden->min, 1.0);

  runner::Options options =
      model_testing::options_for(component.schema, {{"hidden", std::vector<int64_t>{32}}});
  FakeOpLibrary ops;
  std::shared_ptr<runner::Model> model =
      component.make_model(options, model_testing::context(ops, {1, 28, 28}));
  EXPECT_EQ(model->parameter_count(), linear_parameters(784, 32) + linear_parameters(32, 10));
}

}  // namespace
}  // namespace mlp
