// Registers strategy `zero`.
#include "zero_plan.hpp"
#include "zero_strategy.hpp"

RUNNER_PLUGIN(plugin) {
  plugin.add_strategy(
      "zero", "1.0.0",
      "ZeRO data parallelism: optimizer state (stage 1), gradients (2) and "
      "parameters (3) sharded over the ranks",
      runner::strategies::ZeroOptions::fields().schema(),
      [](const runner::Options& options) {
        return std::make_shared<runner::strategies::ZeroStrategy>(
            runner::strategies::ZeroOptions::from(options));
      },
      runner::strategies::plan_zero);
}
