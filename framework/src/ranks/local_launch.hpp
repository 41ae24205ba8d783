// A run of several ranks started by hand (`runner --nproc N`, or strategy.world_size = N):
// the runner serves the store on the loopback, starts the ranks as processes of itself, waits,
// and records the run as failed, naming the rank at fault, when one of them fails.
#pragma once

#include <string>
#include <vector>

#include "plugin_host/registry.hpp"
#include "ranks/rank_environment.hpp"
#include "ranks/rank_setup.hpp"
#include "record/record_run.hpp"

namespace runner::ranks {

// What launching a run's ranks takes: where the run is recorded, the plugins, and how this
// process was started.
struct LaunchContext {
  record::Recording recording;
  const plugin_host::Registry& registry;
  const RankEnvironment& environment;
  const std::vector<std::string>& rank_argv;  // this runner again, as a rank
};

// `start`: the run's group and checkpoint under --resume; the ranks load the checkpoint
// (RUNNER_RESUME_FROM).
record::RunOutcome launch_local_run(const LaunchContext& c, const config::RunConfig& run,
                                    const RankSetup& setup, size_t index,
                                    const record::RunStart& start);

// The process side: a rank of a local launch trains the run its launcher named
// (RUNNER_RUN_INDEX); rank 0 writes it into the group the launcher began. Returns the exit code.
int run_launched_rank(const LaunchContext& c);

}  // namespace runner::ranks
