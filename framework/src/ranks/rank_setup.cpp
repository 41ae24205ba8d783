// A run's ranks from its [strategy] keys and the launcher that started this process.
#include "ranks/rank_setup.hpp"

#include <fmt/format.h>
#include <torch/torch.h>

#include "distributed/connect.hpp"

namespace runner::ranks {
namespace {

// Whether the run trains on this machine's GPUs, and how many there are.
void find_gpus(const config::RunConfig& run, RankSetup& setup) {
  setup.cuda = run.train.device != "cpu" && torch::cuda::is_available();
  setup.gpus = setup.cuda ? static_cast<int>(torch::cuda::device_count()) : 0;
}

// What the [strategy] keys ask for; world_size 0: the launcher's, or one per GPU.
RankSetup strategy_keys(const config::RunConfig& run) {
  const Options& strategy = run.strategy.options;
  RankSetup setup;
  find_gpus(run, setup);
  setup.distributed = strategy.has("world_size");
  if (!setup.distributed) return setup;
  setup.world_size = static_cast<int>(strategy.get_int("world_size"));
  if (strategy.has("backend")) setup.backend = strategy.get_string("backend");
  if (strategy.has("timeout_s"))
    setup.timeout = std::chrono::milliseconds(strategy.get_int("timeout_s") * 1000);
  return setup;
}

// A run started by hand takes world_size ranks, or for 0 one per GPU when it trains on CUDA,
// else 1.
int ranks_started_by_hand(const RankSetup& asked) {
  if (asked.world_size > 0) return asked.world_size;
  return asked.cuda ? asked.gpus : 1;
}

void check_outside_world(const config::RunConfig& run, const RankSetup& asked,
                         const RankEnvironment& env) {
  const std::string launcher = launcher_name(env.launcher);
  if (!asked.distributed && env.world_size > 1)
    throw ConfigError(fmt::format("{} started {} ranks, but strategy '{}' runs on one", launcher,
                                  env.world_size, run.strategy.name),
                      "use a multi-rank strategy (strategy.name = \"ddp\") or start one rank");
  if (asked.world_size != 0 && asked.world_size != env.world_size)
    throw ConfigError(fmt::format("strategy.world_size = {} but {} started {} ranks",
                                  asked.world_size, launcher, env.world_size),
                      "leave strategy.world_size at 0 to take the launcher's");
}

}  // namespace

RankSetup rank_setup_of(const config::RunConfig& run, const RankEnvironment& environment) {
  RankSetup setup = strategy_keys(run);
  switch (environment.launcher) {
    case Launcher::torchrun:
    case Launcher::slurm:
      check_outside_world(run, setup, environment);
      setup.start = RankStart::outside;
      setup.world_size = environment.world_size;
      setup.local_world_size = environment.local_world_size;
      return setup;
    case Launcher::runner:
      setup.start = RankStart::local;
      setup.world_size = environment.world_size;
      setup.local_world_size = environment.local_world_size;
      return setup;
    case Launcher::none: break;
  }
  setup.world_size = ranks_started_by_hand(setup);
  setup.local_world_size = setup.world_size;
  // A run that may restart has its ranks in processes of their own, which the launcher can
  // start again when one dies: one rank too.
  const bool restarts = run.train.max_restarts > 0;
  setup.start = setup.world_size > 1 || restarts ? RankStart::local : RankStart::in_process;
  return setup;
}

std::optional<std::string> cannot_run_here(const RankSetup& setup) {
  if (auto why = distributed::backend_unavailable(setup.backend, setup.world_size)) return why;
  if (!setup.cuda || setup.world_size <= setup.gpus) return std::nullopt;
  return fmt::format("{} ranks on CUDA need a GPU each; this machine has {}", setup.world_size,
                     setup.gpus);
}

std::vector<RankSetup> rank_setups_of(const config::Experiment& experiment,
                                      const RankEnvironment& environment) {
  std::vector<RankSetup> setups;
  for (const auto& run : experiment.runs) setups.push_back(rank_setup_of(run, environment));
  return setups;
}

}  // namespace runner::ranks
