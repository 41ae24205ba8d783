// Registers strategy `tensor`.
#include "tensor_plan.hpp"
#include "tensor_strategy.hpp"

RUNNER_PLUGIN(plugin) {
  plugin.add_strategy(
      "tensor", "1.0.0",
      "tensor parallelism (Megatron-LM): each layer's matrices split over "
      "consecutive ranks, data parallelism over the groups",
      runner::strategies::TensorOptions::fields().schema(),
      [](const runner::Options& options) {
        return std::make_shared<runner::strategies::TensorStrategy>(
            runner::strategies::TensorOptions::from(options));
      },
      runner::strategies::plan_tensor);
}
