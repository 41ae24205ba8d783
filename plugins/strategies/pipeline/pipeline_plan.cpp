// plan_pipeline: each stage's weights, tied copies, and activations of its micro-batches in flight.
#include "pipeline_plan.hpp"

#include <runner/strategies/replica_plan.hpp>

#include <algorithm>

#include "partition.hpp"
#include "pipeline_strategy.hpp"

namespace runner::strategies {
namespace {

constexpr double kFp32 = 4;

LayerWeights weights_of(const ModelEstimate& model) {
  LayerWeights weights;
  for (const auto& layer : model.layers) {
    weights.parameters.push_back(static_cast<double>(layer.parameters));
    weights.flops.push_back(layer.forward_flops);
  }
  return weights;
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

// Parameters the stage's layers read whose owner is on another stage: kept as a copy, with a
// gradient of its own (summed with the owner's), but not stepped here.
double tied_copies(const ModelEstimate& model, LayerRange range) {
  double copies = 0;
  for (size_t l = range.begin; l < range.end; ++l) {
    const LayerEstimate& layer = model.layers[l];
    const bool owner_here = layer.tied_owner >= range.begin && layer.tied_owner < range.end;
    if (layer.tied_parameters > 0 && !owner_here)
      copies += static_cast<double>(layer.tied_parameters);
  }
  return copies;
}

}  // namespace

// Stage s of k holds its layers' weights, gradients and optimizer state, copies of the tied
// weights it reads from another stage with their gradients, and the activations
// of the micro-batches in flight: all m under GPipe, at most k - s under 1F1B; the last stage
// also the loss's; every stage its boundary messages. A model without layers cannot be cut:
// every rank plans the whole replica.
RunPlan plan_pipeline(const Options& options, const PlanInput& input) {
  const PipelineOptions pipeline = PipelineOptions::from(options);
  const int k = pipeline.stages;
  const int ranks = std::max(1, input.world_size);
  const int pipelines = std::max(1, ranks / k);
  const ModelEstimate& model = input.model;
  // Refused as the run's setup refuses it, so that a dry run fails as the run would.
  if (model.layers.empty())
    throw ConfigError("strategy pipeline needs a model that lists its layers; this one lists none",
                      "use gpt2, vgg or conv_stack, or another strategy");
  if (model.layers.size() < static_cast<size_t>(k))
    throw ConfigError("strategy.stages: " + std::to_string(k) +
                          " pipeline stages need at least as many layers; the model lists " +
                          std::to_string(model.layers.size()),
                      "use fewer stages");
  RunPlan plan;
  plan.data_parallel_degree = pipelines;
  plan.micro_batch_size = micro_batch_size(input, pipelines);
  const auto m = std::max<int64_t>(1, input.techniques.micro_batches);
  const bool gpipe = pipeline.schedule == "gpipe";
  // zero_stage 1 over Gloo stages a copy of each of two reductions in flight, as zero's.
  const bool sharded = pipeline.zero_stage == 1 && pipelines > 1;
  const bool gloo = options.get_string("backend") == "gloo";
  const double bucket = pipeline.bucket_mb * 1024 * 1024;
  const LayerWeights weights = weights_of(model);
  const std::string& balance = pipeline.balance;
  const std::vector<LayerRange> ranges = cut_layers(balance, weights, k);
  const auto samples = static_cast<double>(plan.micro_batch_size);
  for (int r = 0; r < ranks; ++r) {
    const int s = r % k;
    const LayerRange range = ranges[static_cast<size_t>(s)];
    double parameters = 0, largest = 0;
    for (size_t l = range.begin; l < range.end; ++l) {
      parameters += static_cast<double>(model.layers[l].parameters);
      largest = std::max(largest, static_cast<double>(model.layers[l].parameters));
    }
    const int64_t in_flight_batches = gpipe ? m : std::min<int64_t>(k - s, m);
    const auto in_flight = static_cast<double>(in_flight_batches);
    MemoryPlan rank;
    const double copies = tied_copies(model, range);
    rank.parameters = kFp32 * (parameters + copies);
    rank.gradients = kFp32 * (parameters + copies);
    const int states = input.optimizer_states_per_parameter;
    // zero_stage 1: the state of this replica's part of each unit, the temporaries of a part.
    const double share = sharded ? 1.0 / pipelines : 1.0;
    rank.optimizer_state = kFp32 * share * (states * parameters + (states > 0 ? largest : 0));
    rank.activations =
        in_flight * samples * held_per_sample(model, range, input.techniques.checkpoint_layers);
    if (s == k - 1) rank.activations += 2 * model.loss_bytes * samples;
    const double boundary = model.layers[range.end - 1].output_bytes * samples;
    rank.buffers = model.buffer_bytes + (s < k - 1 ? 2 * boundary : 0) +
                   (sharded && gloo ? 2 * std::min(bucket, kFp32 * parameters) : 0);
    plan.ranks.push_back(rank);
  }
  plan.notes = std::to_string(k) + " stages x " + std::to_string(pipelines) + " pipeline" +
               (pipelines == 1 ? "" : "s") +
               (sharded ? " (optimizer state sharded over them)" : "") + ", " +
               (gpipe ? "GPipe" : "1F1B") + ", cut by " +
               (balance == "flops" && !says_flops(weights) ? "parameters (the "
                                                             "layers say no FLOPs)"
                                                           : balance);
  return plan;
}

}  // namespace runner::strategies
