#include <fmt/format.h>
#include <gtest/gtest.h>

#include "engine_fixtures.hpp"
#include "engine/estimate.hpp"

namespace runner::engine {
namespace {

using testing::blobs_experiment;
using testing::fixture_registry;

config::RunConfig run_of(const std::string& toml, const plugin_host::Registry& registry) {
  return config::parse_experiment(toml, "estimate.toml", {}, registry).runs.at(0);
}

constexpr double kGiB = 1024.0 * 1024 * 1024;

TEST(Estimate, CountsABuiltModelWhenItHasNoEstimator) {
  auto registry = fixture_registry();
  // blobs: dim 4, 4 classes; linear_probe is Linear(4, 4): 16 weights and 4 biases.
  const RunEstimate e = estimate_run(run_of(blobs_experiment(), registry), registry);
  EXPECT_FALSE(e.from_options);
  EXPECT_EQ(e.parameters, 20);
  EXPECT_DOUBLE_EQ(e.forward_flops_per_sample, 2.0 * 16);
  EXPECT_EQ(e.optimizer, "sgd");
  EXPECT_DOUBLE_EQ(e.weight_bytes, 80);
  EXPECT_DOUBLE_EQ(e.gradient_bytes, 80);
  EXPECT_DOUBLE_EQ(e.optimizer_state_bytes, 0);  // plain SGD keeps nothing
}

TEST(Estimate, UsesTheModelsEstimatorAndNeverBuildsIt) {
  auto registry = fixture_registry();
  const std::string toml =
      "[dataset]\nname = \"blobs\"\n[model]\nname = \"sized_probe\"\n"
      "parameters = 1557611200\nflops = 5.0\n[optimizer]\nname = \"adamw\"\n";
  const RunEstimate e = estimate_run(run_of(toml, registry), registry);
  EXPECT_TRUE(e.from_options);
  EXPECT_EQ(e.parameters, 1557611200);
  EXPECT_DOUBLE_EQ(e.weight_bytes, 4.0 * 1557611200);
  EXPECT_DOUBLE_EQ(e.optimizer_state_bytes, 2 * 4.0 * 1557611200);  // two moments
  EXPECT_DOUBLE_EQ(e.total_bytes(), 16.0 * 1557611200);
  const std::string text = estimate_text(e);
  EXPECT_NE(text.find("1,557,611,200 parameters"), std::string::npos) << text;
  EXPECT_NE(text.find(fmt::format("{:.2f} GiB before activations", 16.0 * 1557611200 / kGiB)),
            std::string::npos)
      << text;
}

TEST(Estimate, OptimizerStatesPerParameter) {
  Options sgd("optimizer");
  sgd.set("name", Value(std::string("sgd")));
  sgd.set("momentum", Value(0.0));
  EXPECT_EQ(optimizer_states_per_parameter(sgd), 0);
  sgd.set("momentum", Value(0.9));
  EXPECT_EQ(optimizer_states_per_parameter(sgd), 1);
  Options adam("optimizer");
  adam.set("name", Value(std::string("adam")));
  EXPECT_EQ(optimizer_states_per_parameter(adam), 2);
}

TEST(Estimate, GroupsThousands) {
  EXPECT_EQ(with_thousands(0), "0");
  EXPECT_EQ(with_thousands(999), "999");
  EXPECT_EQ(with_thousands(1000), "1,000");
  EXPECT_EQ(with_thousands(124439808), "124,439,808");
  EXPECT_EQ(with_thousands(-1234567), "-1,234,567");
}

}  // namespace
}  // namespace runner::engine
