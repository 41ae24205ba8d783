// Registers strategy `zero`.
#include "zero_plan.hpp"
#include "zero_strategy.hpp"

namespace {

runner::Schema zero_schema() {
  runner::Schema schema;
  runner::add_distributed_keys(schema);
  schema.integer("stage", 1,
                 "What is sharded over the ranks: 1 the optimizer state, 2 also the gradients, "
                 "3 also the parameters",
                 1, 3);
  schema.number("bucket_mb", 25.0,
                "Stages 1 and 2: parameters per unit of sharding, in MB of fp32; each unit's "
                "gradients are reduced as soon as backward has given them all",
                0.001, 4096);
  schema.flag("overlap", true,
              "Reduce gradients during backward; false waits for backward to end (to measure "
              "what overlap saves)");
  schema.flag("prefetch", true,
              "Stage 3: start gathering the next layer's parameters while one layer runs");
  schema.text("offload", "none",
              "cpu: the optimizer state and step in pinned host memory (runs on a GPU); nvme: "
              "the optimizer state of each rank's part in files under offload_dir, read in for "
              "its step and written back after it, one unit's at a time",
              {"none", "cpu", "nvme"});
  schema.text("offload_dir", "",
              "nvme: the folder for the optimizer state files (a local disk); empty: the "
              "system's temporary folder");
  schema.flag("drop_last", false,
              "Drop the samples that do not divide among the ranks instead of repeating the "
              "first ones");
  return schema;
}

}  // namespace

RUNNER_PLUGIN(plugin) {
  plugin.add_strategy("zero", "1.0.0",
                      "ZeRO data parallelism: optimizer state (stage 1), gradients (2) and "
                      "parameters (3) sharded over the ranks",
                      zero_schema(),
                      [](const runner::Options& options) {
                        return std::make_shared<runner::strategies::ZeroStrategy>(
                            runner::strategies::ZeroOptions::from(options));
                      },
                      runner::strategies::plan_zero);
}
