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
  schema.text("balance", "flops",
              "Where to cut: stages of about equal forward FLOPs (by parameters when the "
              "model's layers do not say theirs), of equal parameters, or of equal layer counts",
              {"flops", "parameters", "layers"});
  schema.integer("zero_stage", 0,
                 "1: each stage's optimizer state sharded over the pipelines (ZeRO-1 across the "
                 "data-parallel replicas); 0: every replica keeps it whole. Higher stages are "
                 "not supported with a pipeline",
                 0, 1);
  schema.number("bucket_mb", 25.0,
                "zero_stage 1: parameters per sharded unit, in MB of fp32", 0.001, 4096);
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
