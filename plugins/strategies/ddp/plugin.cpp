// Registers strategy `ddp`.
#include <runner/strategies/replica_plan.hpp>

#include "ddp_strategy.hpp"

namespace {

runner::Schema ddp_schema() {
  runner::Schema schema;
  runner::add_distributed_keys(schema);
  schema.number("bucket_mb", 25.0,
                "Gradient bucket size in MB: each bucket's all-reduce starts when its last "
                "gradient is ready",
                0.001, 4096);
  schema.flag("overlap", true,
              "Reduce buckets during backward; false waits for backward to end (to measure "
              "what overlap saves)");
  schema.flag("drop_last", false,
              "Drop the samples that do not divide among the ranks instead of repeating the "
              "first ones");
  schema.text("buffers", "broadcast",
              "Model buffers (BatchNorm statistics): broadcast rank 0's before each forward, "
              "or average them over the ranks after each step",
              {"broadcast", "average"});
  return schema;
}

// Every rank a whole replica. The buckets hold the gradients: at the peak, the start of
// backward, they are the replica's gradients, not more.
runner::RunPlan plan_ddp(const runner::Options&, const runner::PlanInput& input) {
  return runner::strategies::replicated_plan(input, input.world_size, input.world_size, 0,
                                             "a whole replica per rank, its gradients in buckets");
}

}  // namespace

RUNNER_PLUGIN(plugin) {
  plugin.add_strategy("ddp", "1.0.0",
                      "distributed data parallel: one process per rank, gradients averaged in "
                      "buckets during backward",
                      ddp_schema(),
                      [](const runner::Options& options) {
                        return std::make_shared<runner::strategies::DdpStrategy>(
                            runner::strategies::DdpOptions::from(options));
                      },
                      plan_ddp);
}
