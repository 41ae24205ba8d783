// Registers strategy `pipeline`.
#include "pipeline_plan.hpp"
#include "pipeline_strategy.hpp"

namespace {

runner::Schema pipeline_schema() {
  runner::Schema schema;
  runner::add_distributed_keys(schema);
  schema.integer("stages", 2,
                 "Pipeline stages: the model's layers cut into this many ranks in a row; the "
                 "world's ranks form world_size / stages data-parallel pipelines",
                 1, 1024);
  schema.text("schedule", "1f1b",
              "gpipe: every micro-batch's forward, then the backwards; 1f1b: one forward, one "
              "backward in turn once the pipeline is full (keeps fewer activations)",
              {"gpipe", "1f1b"});
  schema.text("balance", "parameters",
              "Where to cut: stages of about equal parameters, or of equal layer counts",
              {"parameters", "layers"});
  schema.flag("drop_last", false,
              "Drop the samples that do not divide among the pipelines instead of repeating the "
              "first ones");
  return schema;
}

}  // namespace

RUNNER_PLUGIN(plugin) {
  plugin.add_strategy("pipeline", "1.0.0",
                      "pipeline parallelism: the model's layers in stages on consecutive ranks, "
                      "micro-batches flowing through them (GPipe or 1F1B)",
                      pipeline_schema(),
                      [](const runner::Options& options) {
                        return std::make_shared<runner::strategies::PipelineStrategy>(
                            runner::strategies::PipelineOptions::from(options));
                      },
                      runner::strategies::plan_pipeline);
}
