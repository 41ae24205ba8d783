// plan_zero: each rank's peak by stage: model state parts, gathered layers, buckets, activations.
#include "zero_plan.hpp"

#include <runner/strategies/replica_plan.hpp>

#include <algorithm>
#include <vector>

#include "zero_strategy.hpp"

namespace runner::strategies {
namespace {

constexpr double kFp32 = 4;

// Parameters of the model's units in stage 3: a unit per layer, largest first (one unit of
// everything for a model without layers).
std::vector<double> layer_units(const ModelEstimate& model) {
  std::vector<double> units;
  for (const auto& layer : model.layers) units.push_back(static_cast<double>(layer.parameters));
  if (units.empty()) units.push_back(static_cast<double>(model.parameters));
  std::sort(units.rbegin(), units.rend());
  return units;
}

}  // namespace

// Stage 1 keeps whole parameters and gradients; stage 2 a part of the gradients; stage 3 a
// part of everything, with the two largest layers gathered at once (one running, the next
// prefetched). The peak is at the start of backward, when activations are all held: stage 2
// has one bucket filling then, stage 1 Gloo's staging copies of the reductions in flight.
// The buckets reduced late in backward (stage 3's largest) meet activations mostly freed.
RunPlan plan_zero(const Options& options, const PlanInput& input) {
  const int ranks = std::max(1, input.world_size);
  const ZeroOptions zero = ZeroOptions::from(options);
  const int stage = zero.stage;
  const double parameters = static_cast<double>(input.model.parameters);
  const double whole = kFp32 * parameters;
  const double part = whole / ranks;
  const double bucket = std::min(whole, zero.bucket_mb * 1024 * 1024);
  const bool gloo = options.get_string("backend") == "gloo";
  const std::vector<double> units = layer_units(input.model);
  const double largest_unit = kFp32 * units[0];
  const double two_units = kFp32 * (units[0] + (units.size() > 1 ? units[1] : 0));
  const double unit = stage == 3 ? largest_unit : bucket;
  const int states = input.optimizer_states_per_parameter;

  RunPlan plan;
  plan.data_parallel_degree = ranks;
  plan.micro_batch_size = micro_batch_size(input, ranks);
  MemoryPlan rank = replica_memory(input, plan.micro_batch_size);
  // The optimizer's temporaries are as large as the largest master part it steps. Offloaded
  // to nvme, only that part's state is in memory, during its step; to cpu, none on the device.
  const std::string& offload = zero.offload;
  const bool offloaded = offload == "nvme";
  rank.optimizer_state = offload == "cpu" ? 0
                         : states * (offloaded ? unit / ranks : part) + (states > 0 ? unit / ranks : 0);
  const double staging = gloo ? 2 * unit : 0;
  if (stage == 1) {
    rank.buffers += staging;
  } else if (stage == 2) {
    rank.gradients = part;
    rank.buffers += bucket;
  } else {
    rank.parameters = part;
    rank.gradients = part;
    rank.buffers += two_units;
  }
  plan.ranks.assign(static_cast<size_t>(ranks), rank);
  plan.notes = "zero stage " + std::to_string(stage) + " over " + std::to_string(ranks) +
               " ranks: " +
               (stage == 1   ? "optimizer state sharded"
                : stage == 2 ? "optimizer state and gradients sharded"
                             : "optimizer state, gradients and parameters sharded") +
               (offloaded ? "; optimizer state in files, one unit's in memory at its step" : "") +
               (offload == "cpu" ? "; optimizer state and step in host memory" : "");
  return plan;
}

}  // namespace runner::strategies
