// A run of several ranks started by hand (`runner --nproc N`, or strategy.world_size = N):
// the runner serves the store on the loopback, starts the ranks as processes of itself, waits,
// and records the run as failed, naming the rank at fault, when one of them fails.
#pragma once

#include "engine/sweep_context.hpp"

namespace runner::engine {

// `plan`: the run's group and checkpoint under --resume; the ranks load the checkpoint
// (RUNNER_RESUME_FROM).
RunOutcome launch_local_run(const SweepContext& c, const config::RunConfig& run, size_t index,
                            const ResumePlan& plan);

// The process side: a rank of a local launch trains the run its launcher named
// (RUNNER_RUN_INDEX); rank 0 writes it into the group the launcher began. Returns the exit code.
int run_launched_rank(const SweepContext& c);

}  // namespace runner::engine
