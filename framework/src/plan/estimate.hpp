// What a run would hold in memory, worked out without training it: the model's estimate (its
// own estimator, or measured on the built model) laid out over the ranks by the strategy's
// planner. `runner --dry-run` prints it, the validator refuses a run over its budget, and the
// results keep it beside the measured peak.
#pragma once

#include <runner/plan.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "config/experiment.hpp"
#include "plugin_host/registry.hpp"

namespace runner::plan {

struct RunEstimate {
  ModelEstimate model;
  bool from_options = false;  // the model's estimator; else measured on the built model
  std::string optimizer;
  RunPlan plan;
  bool planned_by_strategy = false;  // else a whole replica per rank

  double peak_bytes() const;  // the largest rank's total
};

// Builds the dataset (for its shapes and a few samples), then asks the model's estimator, or
// builds the model and measures it; then the strategy's planner. Throws what building throws.
RunEstimate estimate_run(const config::RunConfig& run, const plugin_host::Registry& registry,
                         int world_size);

// The same, from a dataset already built: what a rank does before training. A model without
// an estimator is built apart from the one that trains (its forward may count its calls), the
// random-number state kept.
RunEstimate estimate_run(const config::RunConfig& run, const plugin_host::Registry& registry,
                         int world_size, Dataset& dataset);

// A model's estimate: its estimator's, or measured on the model built for `run` (its random
// state kept), which is what `from_options` says.
struct ModelSizing {
  ModelEstimate model;
  bool from_options = false;
};
ModelSizing size_model(const config::RunConfig& run, const plugin_host::Registry& registry,
                       Dataset& dataset);

// The strategy's plan of `sizing` for `run` on `world_size` ranks: the second half of
// estimate_run, for a caller that sizes a model once and plans it many ways.
RunEstimate plan_model(const config::RunConfig& run, const plugin_host::Registry& registry,
                       int world_size, const ModelSizing& sizing, const DatasetInfo& data);

// fp32 tensors the optimizer keeps per parameter: 2 for adam/adamw, 1 for sgd with momentum.
int optimizer_states_per_parameter(const Options& optimizer);

// One line: "1,557,611,200 parameters (from the model's options); 9.57e+12 training FLOPs..."
std::string estimate_text(const RunEstimate& estimate);

// The plan as a table: one row per rank (ranks alike are one row), bytes by kind.
std::string plan_table(const RunEstimate& estimate);

// ConfigError when a rank's plan is over train.memory_budget (GiB; 0: none), over the memory
// of the run's CUDA device, or, on the CPU, when the plans of the `local_ranks` ranks this
// machine runs are over its available memory; naming what to change.
void check_plan_fits(const config::RunConfig& run, const RunEstimate& estimate, int local_ranks);

// 1557611200 -> "1,557,611,200".
std::string with_thousands(int64_t n);

// 1610612736 -> "1.50 GiB".
std::string gibibytes(double bytes);

}  // namespace runner::plan
