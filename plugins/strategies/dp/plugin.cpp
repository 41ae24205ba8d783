// Registers strategy `dp`.
#include <runner/strategies/replica_plan.hpp>

#include "device_selection.hpp"
#include "dp_strategy.hpp"

RUNNER_PLUGIN(plugin) {
  plugin.add_strategy(
      "dp", "1.0.0",
      "one process over several CUDA devices, as nn.DataParallel: the batch split across "
      "replicas, gradients summed on the first device",
      runner::strategies::dp_schema(), runner::strategies::make_dp_strategy,
      [](const runner::Options&, const runner::PlanInput& input) {
        return runner::strategies::replicated_plan(
            input, 1, 1, 0,
            "the first device: the master replica with the optimizer, and the whole "
            "micro-batch's activations (each device runs a share of it)");
      });
}
