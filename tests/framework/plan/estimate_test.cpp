// Tests of the memory estimate: measured or from the model's estimator, runs over budget refused.
#include "plan/estimate.hpp"
#include "config/load_experiment.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <runner_testing/run_fixtures.hpp>

#include "measure/cpu_memory.hpp"
#include "measure/system.hpp"
#include "runner_testing/byte_units.hpp"

using ::testing::HasSubstr;

namespace runner::plan {
namespace {

using testing::blobs_experiment;
using testing::fixture_registry;

config::RunConfig run_of(const std::string& toml, const plugin_host::Registry& registry) {
  return config::parse_experiment(toml, "estimate.toml", {}, registry).runs.at(0);
}

using runner::testing::kGiB;

TEST(Estimate, MeasuresABuiltModelWhenItHasNoEstimator) {
  auto registry = fixture_registry();
  // blobs: dim 4, 4 classes; linear_probe is Linear(4, 4): 16 weights and 4 biases.
  const RunEstimate e = estimate_run(run_of(blobs_experiment(), registry), registry, 1);
  EXPECT_FALSE(e.from_options);
  EXPECT_EQ(e.model.parameters, 20);
  EXPECT_DOUBLE_EQ(e.model.forward_flops_per_sample, 2.0 * 16);
  EXPECT_EQ(e.optimizer, "sgd");
  EXPECT_TRUE(e.planned_by_strategy);  // single's planner
  ASSERT_EQ(e.plan.ranks.size(), 1u);
  const MemoryPlan& rank = e.plan.ranks[0];
  EXPECT_DOUBLE_EQ(rank.parameters, 80);
  EXPECT_DOUBLE_EQ(rank.gradients, 80);
  EXPECT_DOUBLE_EQ(rank.optimizer_state, 0);  // plain SGD keeps nothing
  // The probe's forward holds its (4) float logits per sample: 16 bytes. Training holds them
  // and the loss's twice (its log-probabilities and their gradient) for 32 samples; a test
  // batch of 1000 holds the logits and the log-probabilities, more in all.
  EXPECT_DOUBLE_EQ(e.model.held_bytes, 16);
  EXPECT_EQ(e.plan.micro_batch_size, 32);
  EXPECT_DOUBLE_EQ(rank.activations, (16 + e.model.loss_bytes) * 1000);
}

TEST(Estimate, UsesTheModelsEstimatorAndNeverBuildsIt) {
  auto registry = fixture_registry();
  const std::string toml =
      "[dataset]\nname = \"blobs\"\n[model]\nname = \"sized_probe\"\n"
      "parameters = 1557611200\nflops = 5.0\n[optimizer]\nname = \"adamw\"\n";
  const RunEstimate e = estimate_run(run_of(toml, registry), registry, 1);
  EXPECT_TRUE(e.from_options);
  EXPECT_EQ(e.model.parameters, 1557611200);
  const MemoryPlan& rank = e.plan.ranks.at(0);
  EXPECT_DOUBLE_EQ(rank.parameters, 4.0 * 1557611200);
  EXPECT_DOUBLE_EQ(rank.optimizer_state, 2 * 4.0 * 1557611200);  // two moments
  EXPECT_DOUBLE_EQ(e.peak_bytes(), 16.0 * 1557611200);           // no activations in its estimate
  const std::string text = estimate_text(e);
  EXPECT_THAT(text, HasSubstr("1,557,611,200 parameters")) << text;
  EXPECT_THAT(text, HasSubstr(fmt::format("peak {:.2f} GiB", 16.0 * 1557611200 / kGiB))) << text;
  const std::string table = plan_table(e);
  EXPECT_THAT(table, HasSubstr("adamw state")) << table;
  EXPECT_THAT(table, HasSubstr(fmt::format("{:.2f} GiB", 8.0 * 1557611200 / kGiB))) << table;
}

TEST(Estimate, ARunPlannedOverItsBudgetIsRefusedNamingTheKey) {
  auto registry = fixture_registry();
  const std::string toml =
      "[dataset]\nname = \"blobs\"\n[model]\nname = \"sized_probe\"\n"
      "parameters = 1000000000\nflops = 5.0\n[optimizer]\nname = \"adamw\"\n"
      "[train]\nmemory_budget = 10.0\n";
  const auto run = run_of(toml, registry);
  try {
    check_plan_fits(run, estimate_run(run, registry, 1), 1);  // 16 GB of model states
    FAIL() << "14.90 GiB over a budget of 10";
  } catch (const ConfigError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("train.memory_budget = 10 GiB")) << e.what();
    EXPECT_THAT(std::string(e.what()), HasSubstr("14.90 GiB")) << e.what();
  }
  const auto roomy = run_of(toml + "", registry);
  auto fits = estimate_run(roomy, registry, 1);
  fits.plan.ranks[0] = MemoryPlan{};  // nothing: under any budget
  EXPECT_NO_THROW(check_plan_fits(roomy, fits, 1));
}

// A run of a 1000-parameter model on the CPU, whose plan the tests below replace.
const char* const kSmallCpuRun =
    "[dataset]\nname = \"blobs\"\n[model]\nname = \"sized_probe\"\nparameters = 1000\n"
    "flops = 5.0\n[optimizer]\nname = \"adamw\"\n[train]\ndevice = \"cpu\"\n";

// CPU ranks share the machine: ranks whose plans together outgrow its memory are refused.
TEST(Estimate, CpuRanksPlannedOverTheMachinesMemoryAreRefusedWithTheNumbers) {
  auto registry = fixture_registry();
  const auto run = run_of(kSmallCpuRun, registry);
  RunEstimate huge = estimate_run(run, registry, 1);
  const double available = *measure::available_memory_bytes();
  huge.plan.ranks.assign(2, MemoryPlan{});
  huge.plan.ranks[0].parameters = huge.plan.ranks[1].parameters = 0.6 * available;
  try {
    check_plan_fits(run, huge, 2);
    FAIL() << "two ranks of 0.6 of the available memory each";
  } catch (const ConfigError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("for its 2 ranks on this machine")) << e.what();
    EXPECT_THAT(std::string(e.what()), HasSubstr("of memory available")) << e.what();
  }
  EXPECT_NO_THROW(check_plan_fits(run, huge, 1)) << "one rank on this machine fits";
}

// Each rank's process holds its libraries before its model, and its allocators keep freed
// memory for reuse, a quarter of the plan at most: a plan that fits only without them is
// refused, naming them.
TEST(Estimate, ThePlanIsCheckedWithWhatAProcessHoldsBeyondIt) {
  auto registry = fixture_registry();
  const auto run = run_of(kSmallCpuRun, registry);
  RunEstimate tight = estimate_run(run, registry, 1);
  const double available = *measure::available_memory_bytes();
  const double base = static_cast<double>(measure::resident_memory_bytes());
  ASSERT_GT(base, 50e6) << "LibTorch alone is larger";
  tight.plan.ranks.assign(1, MemoryPlan{});
  tight.plan.ranks[0].parameters = 0.9 * available;
  try {
    check_plan_fits(run, tight, 1);
    FAIL() << "a plan within the available memory only without the process's own";
  } catch (const ConfigError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("a quarter more for freed memory kept for reuse"))
        << e.what();
    EXPECT_THAT(std::string(e.what()), HasSubstr("a process holds before its model")) << e.what();
  }
  tight.plan.ranks[0].parameters = (available - 2 * base - 256e6) / 1.25;
  EXPECT_NO_THROW(check_plan_fits(run, tight, 1));
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
}  // namespace runner::plan
