// A run's setup of ranks, made once per run from its [strategy] keys and how this process was
// started: how many ranks, how many on this machine, who starts them, how they connect.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "config/experiment.hpp"
#include "ranks/rank_environment.hpp"

namespace runner::ranks {

enum class RankStart {
  in_process,  // one rank: this process trains the run
  local,       // ranks on this machine, child processes of this runner: several, or one
               // that train.max_restarts may start again
  outside,     // torchrun or srun started every rank; this process is one of them
};

struct RankSetup {
  RankStart start = RankStart::in_process;
  bool distributed = false;  // the strategy declares the distributed keys
  int world_size = 1;        // ranks of the run
  int local_world_size = 1;  // of them, on this machine
  std::string backend = "gloo";
  std::chrono::milliseconds timeout{300000};
  bool cuda = false;  // the run asks for CUDA and this machine has a GPU
  int gpus = 0;       // of this machine, when cuda
};

// The strategy's strategy.world_size is 0 (the launcher's, or one rank per GPU of this
// machine training on CUDA, else one) or a count. Under torchrun or srun the launcher's world
// is taken, and a strategy asking for another, or one rank's strategy on several ranks, is a
// ConfigError. Under a local launch (a rank of it), the launcher's world too.
RankSetup rank_setup_of(const config::RunConfig& run, const RankEnvironment& environment);

// Why this machine cannot run a local launch of the ranks: the backend, or too few GPUs for
// one per rank. nullopt: it can.
std::optional<std::string> cannot_run_here(const RankSetup& setup);

// rank_setup_of of every run of the experiment, in order.
std::vector<RankSetup> rank_setups_of(const config::Experiment& experiment,
                                      const RankEnvironment& environment);

}  // namespace runner::ranks
