#include "pipeline_plan.hpp"

#include <runner/strategies/replica_plan.hpp>

#include <algorithm>

#include "partition.hpp"

namespace runner::strategies {
namespace {

constexpr double kFp32 = 4;

std::vector<LayerRange> ranges_of(const Options& options, const ModelEstimate& model, int k) {
  if (options.get_string("balance") == "layers") return balance_by_count(model.layers.size(), k);
  std::vector<double> weights;
  for (const auto& layer : model.layers) weights.push_back(static_cast<double>(layer.parameters));
  return balance_by_weight(weights, k);
}

// Bytes per sample one micro-batch leaves held on the stage: every layer's, or with
// checkpointing their outputs and one layer's held bytes (its recomputation).
double held_per_sample(const ModelEstimate& model, LayerRange range, bool checkpoint) {
  double held = 0, outputs = 0, largest = 0;
  for (size_t l = range.begin; l < range.end; ++l) {
    held += model.layers[l].held_bytes;
    outputs += model.layers[l].output_bytes;
    largest = std::max(largest, model.layers[l].held_bytes);
  }
  return checkpoint ? outputs + largest : held;
}

}  // namespace

// Stage s of k holds its layers' weights, gradients and optimizer state, and the activations
// of the micro-batches in flight: all m under GPipe, at most k - s under 1F1B; the last stage
// also the loss's; every stage its boundary messages. A model without layers cannot be cut:
// every rank plans the whole replica.
RunPlan plan_pipeline(const Options& options, const PlanInput& input) {
  const int k = static_cast<int>(options.get_int("stages"));
  const int ranks = std::max(1, input.world_size);
  const int pipelines = std::max(1, ranks / k);
  const ModelEstimate& model = input.model;
  if (model.layers.size() < static_cast<size_t>(k))
    return replicated_plan(input, pipelines, ranks, 0, "the model lists fewer layers than stages");
  RunPlan plan;
  plan.data_parallel_degree = pipelines;
  plan.micro_batch_size = micro_batch_size(input, pipelines);
  const auto m = std::max<int64_t>(1, input.techniques.micro_batches);
  const bool gpipe = options.get_string("schedule") == "gpipe";
  const std::vector<LayerRange> ranges = ranges_of(options, model, k);
  const auto samples = static_cast<double>(plan.micro_batch_size);
  for (int r = 0; r < ranks; ++r) {
    const int s = r % k;
    const LayerRange range = ranges[static_cast<size_t>(s)];
    double parameters = 0, largest = 0;
    for (size_t l = range.begin; l < range.end; ++l) {
      parameters += static_cast<double>(model.layers[l].parameters);
      largest = std::max(largest, static_cast<double>(model.layers[l].parameters));
    }
    const double in_flight = gpipe ? static_cast<double>(m) : std::min<double>(k - s, m);
    MemoryPlan rank;
    rank.parameters = kFp32 * parameters;
    rank.gradients = kFp32 * parameters;
    const int states = input.optimizer_states_per_parameter;
    rank.optimizer_state = kFp32 * (states * parameters + (states > 0 ? largest : 0));
    rank.activations =
        in_flight * samples * held_per_sample(model, range, input.techniques.checkpoint_layers);
    if (s == k - 1) rank.activations += 2 * model.loss_bytes * samples;
    const double boundary = model.layers[range.end - 1].output_bytes * samples;
    rank.buffers = model.buffer_bytes + (s < k - 1 ? 2 * boundary : 0);
    plan.ranks.push_back(rank);
  }
  plan.notes = std::to_string(k) + " stages x " + std::to_string(pipelines) + " pipeline" +
               (pipelines == 1 ? "" : "s") + ", " + (gpipe ? "GPipe" : "1F1B") +
               "; a tied weight's copy on a later stage is not counted";
  return plan;
}

}  // namespace runner::strategies
