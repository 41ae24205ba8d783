// plan_zero: each rank's peak by stage: model state parts, gathered layers, buckets, activations.
#include "zero_plan.hpp"

#include <runner/strategies/replica_plan.hpp>

#include <algorithm>
#include <vector>

#include "zero_strategy.hpp"

namespace runner::strategies {
namespace {

constexpr double kFp32 = 4;

// fp32 bytes of stage 3's largest units (a unit per layer; one unit of everything for a model
// without layers): the largest, and the sums of the two and of the three largest.
struct LargestUnits {
  double one = 0, two = 0, three = 0;
};

LargestUnits largest_layer_units(const ModelEstimate& model) {
  std::vector<double> units;
  for (const auto& layer : model.layers) units.push_back(static_cast<double>(layer.parameters));
  if (units.empty()) units.push_back(static_cast<double>(model.parameters));
  std::sort(units.rbegin(), units.rend());
  units.resize(std::max<size_t>(units.size(), 3), 0);
  return {kFp32 * units[0], kFp32 * (units[0] + units[1]),
          kFp32 * (units[0] + units[1] + units[2])};
}

// Stage 3's peak is at one of two moments. While activations are held (the start of
// backward): the parameter part, two layers gathered (one running, the next prefetched), the
// optimizer state unless offloaded, and the gradients so far: the earlier micro-batches'
// parts, and a unit's whole gradient waiting for its reduction (a tied embedding's arrives
// with the head's backward). At the optimizer's step: every gradient part, the state (in
// files: three units' parts, one stepping, the next read in and the last written back) and
// the step's temporaries (Adam's denominator: the square root and its quotient live
// together), no activations.
MemoryPlan stage_three_peak(const MemoryPlan& replica, const PlanInput& input, double part,
                            const LargestUnits& units, int ranks, const std::string& offload) {
  const int states = input.optimizer_states_per_parameter;
  const double temporaries = states > 0 ? 2 * units.one / ranks : 0;
  MemoryPlan held = replica;
  held.parameters = part;
  held.gradients = (input.techniques.micro_batches > 1 ? part : 0) + units.one;
  held.optimizer_state = offload == "none" ? states * part : 0;
  held.buffers += units.two;
  MemoryPlan step;
  step.parameters = part;
  step.gradients = part;
  step.optimizer_state = offload == "cpu"    ? 0
                         : offload == "nvme" ? states * units.three / ranks + temporaries
                                             : states * part + temporaries;
  step.buffers = input.model.buffer_bytes;
  return step.total() > held.total() ? step : held;
}

}  // namespace

// Stage 1 keeps whole parameters and gradients; stage 2 a part of the gradients; stage 3 a
// part of everything (stage_three_peak). The peak of stages 1 and 2 is at the start of
// backward, when activations are all held: stage 2 has one bucket filling then, stage 1
// Gloo's staging copies of the reductions in flight.
RunPlan plan_zero(const Options& options, const PlanInput& input) {
  const int ranks = std::max(1, input.world_size);
  const ZeroOptions zero = ZeroOptions::from(options);
  const int stage = zero.stage;
  const double parameters = static_cast<double>(input.model.parameters);
  const double whole = kFp32 * parameters;
  const double part = whole / ranks;
  const double bucket = std::min(whole, zero.bucket_mb * 1024 * 1024);
  const bool gloo = options.get_string("backend") == "gloo";
  const int states = input.optimizer_states_per_parameter;
  const std::string& offload = zero.offload;

  RunPlan plan;
  plan.data_parallel_degree = ranks;
  plan.micro_batch_size = micro_batch_size(input, ranks);
  MemoryPlan rank = replica_memory(input, plan.micro_batch_size);
  if (stage == 3) {
    rank = stage_three_peak(rank, input, part, largest_layer_units(input.model), ranks, offload);
  } else {
    // The optimizer's temporaries are as large as the largest bucket's part it steps.
    // Offloaded to nvme, three buckets' state is in memory (one stepping, one read in, one
    // written back); to cpu, none on the device.
    const double bucket_part = bucket / ranks;
    const double in_memory = offload == "nvme" ? std::min(part, 3 * bucket_part) : part;
    rank.optimizer_state =
        offload == "cpu" ? 0 : states * in_memory + (states > 0 ? bucket_part : 0);
    if (stage == 1) rank.buffers += gloo ? 2 * bucket : 0;
    if (stage == 2) {
      rank.gradients = part;
      rank.buffers += bucket;
    }
  }
  plan.ranks.assign(static_cast<size_t>(ranks), rank);
  plan.notes =
      "zero stage " + std::to_string(stage) + " over " + std::to_string(ranks) + " ranks: " +
      (stage == 1   ? "optimizer state sharded"
       : stage == 2 ? "optimizer state and gradients sharded"
                    : "optimizer state, gradients and parameters sharded") +
      (offload == "nvme" ? "; optimizer state in files, three units' in memory during the step"
                         : "") +
      (offload == "cpu" ? "; optimizer state and step in host memory" : "");
  return plan;
}

}  // namespace runner::strategies
