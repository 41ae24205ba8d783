// A run's setup of ranks: started by hand, as a rank of a local launch, and under torchrun.
#include "ranks/rank_setup.hpp"
#include "config/load_experiment.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <runner_testing/error_message.hpp>
#include <runner_testing/run_fixtures.hpp>

using ::testing::HasSubstr;

namespace runner::ranks {
namespace {

using runner::testing::blobs_experiment;
using runner::testing::fixture_registry;
using runner::testing::message_of;

config::Experiment experiment_of(const std::string& extra) {
  static const plugin_host::Registry registry = fixture_registry();
  return config::parse_experiment(blobs_experiment(extra), "ranks.toml", {}, registry);
}

config::RunConfig run_of(const std::string& extra) { return experiment_of(extra).runs.at(0); }

RankEnvironment launched_by(Launcher launcher, int world_size, int local_world_size) {
  RankEnvironment env;
  env.launcher = launcher;
  env.world_size = world_size;
  env.local_world_size = local_world_size;
  return env;
}

TEST(RankSetup, AOneRankStrategyTrainsInThisProcess) {
  const RankSetup setup = rank_setup_of(run_of(""), {});
  EXPECT_EQ(setup.start, RankStart::in_process);
  EXPECT_FALSE(setup.distributed);
  EXPECT_EQ(setup.world_size, 1);
  EXPECT_EQ(setup.local_world_size, 1);
}

TEST(RankSetup, StrategyKeysByHandStartThatManyRanksHere) {
  const RankSetup setup = rank_setup_of(
      run_of("[strategy]\nname = \"ddp\"\nworld_size = 3\nbackend = \"gloo\"\ntimeout_s = 7\n"),
      {});
  EXPECT_EQ(setup.start, RankStart::local);
  EXPECT_TRUE(setup.distributed);
  EXPECT_EQ(setup.world_size, 3);
  EXPECT_EQ(setup.local_world_size, 3);
  EXPECT_EQ(setup.backend, "gloo");
  EXPECT_EQ(setup.timeout, std::chrono::milliseconds(7000));
}

TEST(RankSetup, WorldSizeZeroByHandOnTheCpuIsOneRank) {
  const RankSetup setup = rank_setup_of(run_of("[strategy]\nname = \"ddp\"\n"), {});
  EXPECT_EQ(setup.start, RankStart::in_process);
  EXPECT_TRUE(setup.distributed);
  EXPECT_EQ(setup.world_size, 1);
  EXPECT_EQ(setup.timeout, std::chrono::milliseconds(300000)) << "the schema's default";
}

TEST(RankSetup, UnderTorchrunTheLaunchersWorldIsTaken) {
  const RankSetup setup =
      rank_setup_of(run_of("[strategy]\nname = \"ddp\"\n"), launched_by(Launcher::torchrun, 4, 2));
  EXPECT_EQ(setup.start, RankStart::outside);
  EXPECT_EQ(setup.world_size, 4);
  EXPECT_EQ(setup.local_world_size, 2);
}

TEST(RankSetup, ARankOfALocalLaunchTakesItsLaunchersWorld) {
  const RankSetup setup = rank_setup_of(run_of("[strategy]\nname = \"ddp\"\nworld_size = 3\n"),
                                        launched_by(Launcher::runner, 3, 3));
  EXPECT_EQ(setup.start, RankStart::local);
  EXPECT_EQ(setup.world_size, 3);
}

TEST(RankSetup, AWorldSizeOtherThanTheLaunchersIsRefused) {
  const std::string message = message_of<ConfigError>([] {
    rank_setup_of(run_of("[strategy]\nname = \"ddp\"\nworld_size = 2\n"),
                  launched_by(Launcher::slurm, 4, 4));
  });
  EXPECT_THAT(message, HasSubstr("strategy.world_size = 2 but slurm started 4 ranks")) << message;
}

TEST(RankSetup, AOneRankStrategyOnSeveralLaunchedRanksIsRefused) {
  const std::string message = message_of<ConfigError>(
      [] { rank_setup_of(run_of(""), launched_by(Launcher::torchrun, 2, 2)); });
  EXPECT_THAT(message, HasSubstr("torchrun started 2 ranks, but strategy 'single' runs on one"))
      << message;
}

TEST(RankSetup, EveryRunOfASweepIsPlannedInOrder) {
  const auto setups = rank_setups_of(
      experiment_of("[strategy]\nname = \"ddp\"\n[sweep]\n\"strategy.world_size\" = [1, 2]\n"), {});
  ASSERT_EQ(setups.size(), 2u);
  EXPECT_EQ(setups[0].start, RankStart::in_process);
  EXPECT_EQ(setups[1].start, RankStart::local);
  EXPECT_EQ(setups[1].world_size, 2);
}

}  // namespace
}  // namespace runner::ranks
