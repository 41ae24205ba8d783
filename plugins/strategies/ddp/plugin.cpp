// Registers strategy `ddp`.
#include <runner/strategies/replica_plan.hpp>

#include "ddp_strategy.hpp"

namespace {

// Every rank a whole replica. The buckets hold the gradients: at the peak, the start of
// backward, they are the replica's gradients, not more.
runner::RunPlan plan_ddp(const runner::Options&, const runner::PlanInput& input) {
  return runner::strategies::replicated_plan(input, input.world_size, input.world_size, 0,
                                             "a whole replica per rank, its gradients in buckets");
}

}  // namespace

RUNNER_PLUGIN(plugin) {
  plugin.add_strategy(
      "ddp", "1.0.0",
      "distributed data parallel: one process per rank, gradients averaged in "
      "buckets during backward",
      runner::strategies::DdpOptions::fields().schema(),
      [](const runner::Options& options) {
        return std::make_shared<runner::strategies::DdpStrategy>(
            runner::strategies::DdpOptions::from(options));
      },
      plan_ddp);
}
