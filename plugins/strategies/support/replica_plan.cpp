// Activation bytes per sample for training and evaluation, a replica's memory, the replicated plan.
#include "runner/strategies/replica_plan.hpp"

#include <algorithm>

namespace runner::strategies {
namespace {

constexpr double kFp32 = 4, kHalf = 2;

// Bytes per sample at a training step's peak. Kept activations: every layer's, and the loss's
// twice (what it keeps, and the gradient backward starts from). Checkpointed layers keep their
// inputs (the previous layers' outputs); the peak is the end of forward (every output and the
// loss), the start of backward (the last output gone, the loss twice) or the recomputation of
// a layer i (the outputs before it, what i holds, the gradient of its output), the largest.
double per_sample_train(const ModelEstimate& model, bool checkpoint) {
  const double loss = model.loss_bytes;
  if (model.layers.empty()) return model.held_bytes + 2 * loss;
  double held = 0, outputs = 0, recompute = 0, backward = 0, input = 0;
  for (const auto& layer : model.layers) {
    held += layer.held_bytes;
    recompute = std::max(recompute, outputs + layer.held_bytes + layer.output_bytes);
    // A layer's backward: what the layers up to it hold, its output's gradient and its
    // input's, which it makes.
    backward = std::max(backward, held + layer.output_bytes + input);
    outputs += layer.output_bytes;
    input = layer.output_bytes;
  }
  if (!checkpoint) return std::max(held + 2 * loss, backward);
  const double last_output = model.layers.back().output_bytes;
  return std::max({outputs + loss, outputs - last_output + 2 * loss, recompute});
}

// Bytes per sample at an evaluation forward's peak (no gradients): a layer's input while it
// holds what its forward makes (held_bytes, the most it can make), or at the end the output
// and what the loss makes from it (its log-probabilities; no gradient beside them). A model
// without layers: its whole forward's held bytes and the loss's.
double per_sample_test(const ModelEstimate& model) {
  const double loss = model.loss_bytes;
  if (model.layers.empty()) return model.held_bytes + loss;
  double peak = 0, input = 0;
  for (const auto& layer : model.layers) {
    peak = std::max(peak, input + layer.held_bytes);
    input = layer.output_bytes;
  }
  return std::max(peak, input + loss);
}

}  // namespace

int64_t micro_batch_size(const PlanInput& input, int data_parallel_degree) {
  const int64_t per_rank = input.batch_size / std::max(1, data_parallel_degree);
  return std::max<int64_t>(1, per_rank / std::max<int64_t>(1, input.techniques.micro_batches));
}

double activation_bytes(const PlanInput& input, int64_t samples) {
  const ModelEstimate& m = input.model;
  const double per_sample = per_sample_train(m, input.techniques.checkpoint_layers);
  const double casts =
      input.techniques.precision == Precision::fp32 ? 0 : kHalf * static_cast<double>(m.parameters);
  const double test = per_sample_test(m) * static_cast<double>(input.test_batch_size);
  return std::max(per_sample * static_cast<double>(samples) + casts, test);
}

MemoryPlan replica_memory(const PlanInput& input, int64_t samples) {
  const auto parameters = static_cast<double>(input.model.parameters);
  double largest_layer = 0;  // unknown without layers
  for (const auto& layer : input.model.layers)
    largest_layer = std::max(largest_layer, static_cast<double>(layer.parameters));
  MemoryPlan plan;
  plan.parameters = kFp32 * parameters;
  plan.gradients = kFp32 * parameters;
  const int states = input.optimizer_states_per_parameter;
  // The optimizer's step makes temporaries as large as a parameter (Adam's denominator).
  plan.optimizer_state = kFp32 * (parameters * states + (states > 0 ? largest_layer : 0));
  plan.activations = activation_bytes(input, samples);
  plan.buffers = input.model.buffer_bytes;
  return plan;
}

RunPlan replicated_plan(const PlanInput& input, int data_parallel_degree, int ranks,
                        double buffers_per_rank, std::string notes) {
  RunPlan plan;
  plan.data_parallel_degree = data_parallel_degree;
  plan.micro_batch_size = micro_batch_size(input, data_parallel_degree);
  MemoryPlan rank = replica_memory(input, plan.micro_batch_size);
  rank.buffers += buffers_per_rank;
  plan.ranks.assign(static_cast<size_t>(std::max(1, ranks)), rank);
  plan.notes = std::move(notes);
  return plan;
}

}  // namespace runner::strategies
