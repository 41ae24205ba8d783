// Registers strategy `single`.
#include <runner/strategies/replica_plan.hpp>

#include "single_strategy.hpp"

RUNNER_PLUGIN(plugin) {
  plugin.add_strategy(
      "single", "1.0.0", "one process on one device: forward, backward, step", runner::Schema(),
      [](const runner::Options&) { return std::make_shared<runner::strategies::SingleStrategy>(); },
      [](const runner::Options&, const runner::PlanInput& input) {
        return runner::strategies::replicated_plan(input, 1, 1, 0, "one whole replica");
      });
}
