// A run's ranks from its [strategy] keys and the launcher that started this process.
#include "ranks/rank_plan.hpp"

#include <fmt/format.h>
#include <torch/torch.h>

namespace runner::ranks {
namespace {

// Whether the run trains on this machine's GPUs, and how many there are.
void find_gpus(const config::RunConfig& run, RankPlan& plan) {
  plan.cuda = run.train.get_string("device") != "cpu" && torch::cuda::is_available();
  plan.gpus = plan.cuda ? static_cast<int>(torch::cuda::device_count()) : 0;
}

// What the [strategy] keys ask for; world_size 0: the launcher's, or one per GPU.
RankPlan strategy_keys(const config::RunConfig& run) {
  const Options& strategy = run.strategy.options;
  RankPlan plan;
  find_gpus(run, plan);
  plan.distributed = strategy.has("world_size");
  if (!plan.distributed) return plan;
  plan.world_size = static_cast<int>(strategy.get_int("world_size"));
  if (strategy.has("backend")) plan.backend = strategy.get_string("backend");
  if (strategy.has("timeout_s"))
    plan.timeout = std::chrono::milliseconds(strategy.get_int("timeout_s") * 1000);
  return plan;
}

// A run started by hand takes world_size ranks, or for 0 one per GPU when it trains on CUDA,
// else 1.
int ranks_started_by_hand(const RankPlan& asked) {
  if (asked.world_size > 0) return asked.world_size;
  return asked.cuda ? asked.gpus : 1;
}

void check_outside_world(const config::RunConfig& run, const RankPlan& asked,
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

RankPlan plan_ranks(const config::RunConfig& run, const RankEnvironment& environment) {
  RankPlan plan = strategy_keys(run);
  switch (environment.launcher) {
    case Launcher::torchrun:
    case Launcher::slurm:
      check_outside_world(run, plan, environment);
      plan.start = RankStart::outside;
      plan.world_size = environment.world_size;
      plan.local_world_size = environment.local_world_size;
      return plan;
    case Launcher::runner:
      plan.start = RankStart::local;
      plan.world_size = environment.world_size;
      plan.local_world_size = environment.local_world_size;
      return plan;
    case Launcher::none: break;
  }
  plan.world_size = ranks_started_by_hand(plan);
  plan.local_world_size = plan.world_size;
  plan.start = plan.world_size > 1 ? RankStart::local : RankStart::in_process;
  return plan;
}

std::vector<RankPlan> plan_runs(const config::Experiment& experiment,
                                const RankEnvironment& environment) {
  std::vector<RankPlan> plans;
  for (const auto& run : experiment.runs) plans.push_back(plan_ranks(run, environment));
  return plans;
}

}  // namespace runner::ranks
