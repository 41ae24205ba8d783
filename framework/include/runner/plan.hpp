// The run plan: what each rank of a run will hold, worked out before anything is built, so a
// run that cannot fit is refused before it starts and `--dry-run` shows where the bytes go.
// The model estimates itself (runner/model.hpp's ModelEstimate); the strategy lays the
// estimate out over its ranks (a StrategyPlanner, registered with the strategy).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runner/model.hpp"
#include "runner/options.hpp"
#include "runner/techniques.hpp"
#include "runner/tensor_split.hpp"

namespace runner {

// Bytes one rank holds at its peak, by what they are.
struct MemoryPlan {
  double parameters = 0;
  double gradients = 0;
  double optimizer_state = 0;
  double activations = 0;  // saved for backward at the micro-batch size and the loss's, or a
                           // test batch's outputs and loss, whichever is larger
  double buffers = 0;      // communication and staging: gradient buckets, gathered shards

  double total() const { return parameters + gradients + optimizer_state + activations + buffers; }
};

struct PlanInput {
  ModelEstimate model;
  Techniques techniques;
  int world_size = 1;
  int64_t batch_size = 1;                  // train.batch_size, the global batch
  int64_t test_batch_size = 1;             // train.test_batch_size, per rank
  int optimizer_states_per_parameter = 0;  // fp32 tensors per parameter: 2 for adam(w)
  // What a tensor-parallel split divides (the model's SplitEstimator); none when the model
  // registered none.
  std::optional<SplitEstimate> tensor_split;
};

struct RunPlan {
  int data_parallel_degree = 1;
  int64_t micro_batch_size = 1;   // samples per forward on one rank
  std::vector<MemoryPlan> ranks;  // one per rank
  std::string notes;              // what the plan assumes, in a line
};

using StrategyPlanner = std::function<RunPlan(const Options& strategy, const PlanInput& input)>;

}  // namespace runner
