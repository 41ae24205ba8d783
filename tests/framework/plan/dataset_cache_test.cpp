// The checks before training build each dataset once per identity, failures included.
#include "plan/dataset_cache.hpp"
#include "config/load_experiment.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <runner_testing/run_fixtures.hpp>

using ::testing::HasSubstr;

namespace runner::plan {
namespace {

using testing::blobs_experiment;
using testing::fixture_registry;

std::vector<config::RunConfig> runs_of(const std::string& toml,
                                       const plugin_host::Registry& registry,
                                       const std::vector<std::string>& overrides = {}) {
  return config::parse_experiment(toml, "cache.toml", overrides, registry).runs;
}

TEST(DatasetCache, RunsThatResolveTheDatasetAlikeShareOne) {
  auto registry = fixture_registry();
  const auto runs = runs_of(
      blobs_experiment("[sweep]\n\"optimizer.lr\" = [0.1, 0.2]\n\"dataset.dim\" = [4, 5]\n"),
      registry);
  ASSERT_EQ(runs.size(), 4u);
  DatasetCache cache(registry);
  // Product order, the first key slowest: lr 0.1 with dim 4, 5, then lr 0.2 with dim 4, 5.
  EXPECT_EQ(&cache.get(runs[0]), &cache.get(runs[2]));
  EXPECT_EQ(&cache.get(runs[1]), &cache.get(runs[3]));
  EXPECT_NE(&cache.get(runs[0]), &cache.get(runs[1]));
  EXPECT_EQ(cache.get(runs[1]).info().sample_shape, std::vector<int64_t>{5});
}

TEST(DatasetCache, AnotherSeedIsAnotherDataset) {
  auto registry = fixture_registry();
  const auto runs = runs_of(blobs_experiment("[sweep]\n\"experiment.seed\" = [1, 2]\n"), registry);
  DatasetCache cache(registry);
  EXPECT_NE(&cache.get(runs[0]), &cache.get(runs[1]));
}

TEST(DatasetCache, ADatasetThatFailsFailsAlikeForEveryRun) {
  auto registry = fixture_registry();
  const auto runs = runs_of(blobs_experiment("[sweep]\n\"optimizer.lr\" = [0.1, 0.2]\n"), registry,
                            {"dataset.classes=5"});
  DatasetCache cache(registry);
  for (const auto& run : runs) {
    try {
      cache.get(run);
      ADD_FAILURE() << "dim 4 < 5 classes was built";
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), 2);
      EXPECT_THAT(std::string(e.what()), HasSubstr("dataset.dim must be >= dataset.classes"))
          << e.what();
    }
  }
}

}  // namespace
}  // namespace runner::plan
