// Registers strategy `pipeline`.
#include "pipeline_plan.hpp"
#include "pipeline_strategy.hpp"

RUNNER_PLUGIN(plugin) {
  plugin.add_strategy(
      "pipeline", "1.0.0",
      "pipeline parallelism: the model's layers in stages on consecutive ranks, "
      "micro-batches flowing through them (GPipe or 1F1B)",
      runner::strategies::PipelineOptions::fields().schema(),
      [](const runner::Options& options) {
        return std::make_shared<runner::strategies::PipelineStrategy>(
            runner::strategies::PipelineOptions::from(options));
      },
      runner::strategies::plan_pipeline);
}
