// Registers strategy `tensor`.
#include "tensor_plan.hpp"
#include "tensor_strategy.hpp"

namespace {

runner::Schema tensor_schema() {
  runner::Schema schema;
  runner::add_distributed_keys(schema);
  schema.integer("degree", 2,
                 "Ranks per tensor-parallel group: consecutive ranks that split each layer's "
                 "matrices and share a batch; the world's ranks form world_size / degree "
                 "data-parallel replicas",
                 1, 1024);
  schema.flag("drop_last", false,
              "Drop the samples that do not divide among the replicas instead of repeating the "
              "first ones");
  return schema;
}

}  // namespace

RUNNER_PLUGIN(plugin) {
  plugin.add_strategy("tensor", "1.0.0",
                      "tensor parallelism (Megatron-LM): each layer's matrices split over "
                      "consecutive ranks, data parallelism over the groups",
                      tensor_schema(),
                      [](const runner::Options& options) {
                        return std::make_shared<runner::strategies::TensorStrategy>(
                            runner::strategies::TensorOptions::from(options));
                      },
                      runner::strategies::plan_tensor);
}
