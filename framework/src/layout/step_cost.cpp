// The step-time model: each term from the model's estimate, the layout and the rates.
#include "layout/step_cost.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <runner/errors.hpp>
#include <vector>

namespace runner::layout {
namespace {

// A transformer block's forward is about four GEMMs of similar size (q, k, v; the attention
// projection; the MLP's two): a layer's FLOPs over this is the size its GEMMs run at.
constexpr double kGemmsPerLayer = 4;
// Elementwise work reads and writes what forward keeps about four times: written in forward,
// read in backward, its gradient written and read.
constexpr double kActivationPasses = 4;
// The optimizer's pass per parameter: weight, gradient and two moments, read and written.
constexpr double kOptimizerBytesPerParameter = 4 * 4 * 2;
constexpr double kFp32 = 4;
// bf16 or fp16: autocast casts every weight for each forward (the recomputed one too), and
// each weight's gradient comes back to fp32: an fp32 read and a 16-bit write, or the reverse.
constexpr double kCastBytesPerParameter = kFp32 + 2;

struct Work {
  double forward_flops = 0;   // per sample
  double held_bytes = 0;      // per sample
  double boundary_bytes = 0;  // per sample: a pipeline stage's output
  double layer_count = 1;
};

// The model's layers, or the whole model as one when it lists none.
std::vector<LayerEstimate> layers_of(const ModelEstimate& model) {
  if (!model.layers.empty()) return model.layers;
  LayerEstimate whole;
  whole.parameters = model.parameters;
  whole.forward_flops = model.forward_flops_per_sample;
  whole.held_bytes = model.held_bytes;
  return {whole};
}

// What the busiest rank computes per sample: a tensor degree's share of every layer, or the
// largest of a pipeline's stages cut by FLOPs (at least its largest layer).
Work rank_work(const Layout& layout, const ModelEstimate& model) {
  const auto layers = layers_of(model);
  Work work;
  for (const auto& l : layers) {
    work.forward_flops += l.forward_flops;
    work.held_bytes += l.held_bytes;
    work.boundary_bytes += l.output_bytes / static_cast<double>(layers.size());
  }
  work.held_bytes += model.loss_bytes;
  work.layer_count = static_cast<double>(layers.size());
  if (layout.tensor_degree > 1) {
    work.forward_flops /= layout.tensor_degree;
    work.held_bytes /= layout.tensor_degree;
  }
  if (layout.pipeline_stages > 1) {
    double largest = 0;
    for (const auto& l : layers) largest = std::max(largest, l.forward_flops);
    const double share = std::max(work.forward_flops / layout.pipeline_stages, largest);
    const double fraction = work.forward_flops > 0 ? share / work.forward_flops : 1.0;
    work.forward_flops = share;
    work.held_bytes *= fraction;
    work.layer_count = std::max(1.0, work.layer_count / layout.pipeline_stages);
  }
  return work;
}

// Parameters whose gradients and optimizer state this rank works on, before ZeRO's sharding.
double replica_parameters(const Layout& layout, const ModelEstimate& model) {
  return static_cast<double>(model.parameters) / layout.tensor_degree / layout.pipeline_stages;
}

// Seconds to move `bytes` through a ring of `ranks` ranks as a reduce-scatter or all-gather.
double ring_part(double bytes, int ranks, double link) {
  return ranks > 1 ? bytes * (ranks - 1) / ranks / link : 0.0;
}

// The strategy's collectives and messages in one step, in seconds at each one's rate.
double communication(const StepInput& in, const Work& work, double replica_bytes,
                     const Rates& rates) {
  const Layout& l = in.layout;
  const int d = l.data_parallel;
  const double m = static_cast<double>(l.micro_batches);
  const double samples = static_cast<double>(in.batch_size) / d;
  const double reduce = ring_part(replica_bytes, d, rates.all_reduce_bytes_per_s);
  const double gather = ring_part(replica_bytes, d, rates.all_gather_bytes_per_s);
  const double scatter = ring_part(replica_bytes, d, rates.reduce_scatter_bytes_per_s);
  double seconds = 0;
  if (l.strategy == "ddp" || l.strategy == "tensor" || l.strategy == "pipeline")
    seconds += 2 * reduce;     // the gradients' all-reduce
  if (l.strategy == "zero") {  // gradients scattered, updated weights (zero-3: each layer) gathered
    if (l.zero_stage == 1) seconds += scatter + gather;
    if (l.zero_stage == 2) seconds += m * scatter + gather;
    if (l.zero_stage == 3) seconds += m * scatter + 2 * m * gather;
  }
  if (l.strategy == "tensor")  // two all-reduces of each layer's output in forward, two back
    seconds += 4 * 2 *
               ring_part(work.boundary_bytes * work.layer_count * samples, l.tensor_degree,
                         rates.all_reduce_bytes_per_s);
  if (l.strategy == "pipeline")  // each boundary's activations forward, their gradients back
    seconds += 2 * (l.pipeline_stages > 2 ? 2 : 1) * work.boundary_bytes * samples /
               rates.link_bytes_per_s;
  if (l.strategy == "dp")  // the weights out to every device, the gradients back
    seconds += 2 * replica_bytes * (d - 1) / rates.link_bytes_per_s;
  return seconds;
}

// Seconds a rank spends per step on its micro-batches beside their FLOPs and activations:
// each after the first at the calibrated extra-pass rate (its gradients added to those held,
// autocast's casts, its weight gradients written whole); in bf16 or fp16 the first's casts of
// the weights and of their gradients back, and checkpointing's recomputed forward casting the
// weights again in each.
double micro_batch_passes(const Layout& l, double parameters, const Rates& rates) {
  const double m = static_cast<double>(l.micro_batches);
  double seconds = 0;
  if (l.micro_batches > 1) {
    const auto extra = rates.extra_pass_s_per_parameter.find(l.precision);
    RUNNER_CHECK(extra != rates.extra_pass_s_per_parameter.end(),
                 "no extra-pass rate for " + std::string(precision_name(l.precision)));
    seconds += (m - 1) * extra->second * parameters;
  }
  if (l.precision != Precision::fp32) {
    const double casts = 2 + (l.checkpoint_layers ? m : 0);
    seconds += casts * kCastBytesPerParameter * parameters / rates.cast_bytes_per_s;
  }
  return seconds;
}

// Collectives a CUDA rank overlaps with backward (its buckets and prefetches run on their own
// streams); on the CPU the same cores do both, and nothing is hidden.
double exposed(const StepInput& in, double seconds, double backward) {
  const bool overlapped = in.layout.strategy == "ddp" || in.layout.strategy == "zero";
  if (!in.devices.cuda || !overlapped) return seconds;
  return std::max(0.0, seconds - backward);
}

}  // namespace

StepCost predict_step(const StepInput& in, const Rates& rates) {
  const Layout& l = in.layout;
  const Work work = rank_work(l, in.model);
  const double samples = static_cast<double>(in.batch_size) / l.data_parallel;
  const double micro_samples = samples / static_cast<double>(l.micro_batches);
  const double layer_gemm = work.forward_flops / work.layer_count * micro_samples / kGemmsPerLayer;
  const double forward = work.forward_flops * samples / rates.gemm_rate(l.precision, layer_gemm);

  const double replica = replica_parameters(l, in.model);
  const bool sharded_state =
      (l.strategy == "zero") || (l.strategy == "pipeline" && l.zero_stage == 1);
  const double stepped = sharded_state ? replica / l.data_parallel : replica;

  StepCost cost;
  cost.compute = 3 * forward;
  cost.memory =
      (kActivationPasses * work.held_bytes * samples + kOptimizerBytesPerParameter * stepped) /
      rates.memory_bytes_per_s;
  cost.recompute = l.checkpoint_layers ? forward : 0.0;
  cost.communication = exposed(in, communication(in, work, kFp32 * replica, rates), 2 * forward);
  if (l.pipeline_stages > 1)
    cost.bubble = (l.pipeline_stages - 1) / static_cast<double>(l.micro_batches) *
                  (cost.compute + cost.memory + cost.recompute);
  const double state_bytes = kFp32 * in.optimizer_states_per_parameter * stepped;
  if (l.offload == "nvme") cost.offload = 2 * state_bytes / rates.disk_bytes_per_s;
  if (l.offload == "cpu")  // gradients to the host, updated weights back
    cost.offload = 2 * kFp32 * stepped / rates.host_bytes_per_s;
  cost.passes = micro_batch_passes(l, replica, rates);
  return cost;
}

std::string why_slower(const StepCost& cost, const StepCost& best) {
  const std::vector<std::pair<const char*, double>> deltas{
      {"compute", cost.compute - best.compute},
      {"memory traffic", cost.memory - best.memory},
      {"recomputation", cost.recompute - best.recompute},
      {"communication", cost.communication - best.communication},
      {"pipeline bubble", cost.bubble - best.bubble},
      {"offload", cost.offload - best.offload},
      {"micro-batch passes", cost.passes - best.passes}};
  const auto largest =
      std::max_element(deltas.begin(), deltas.end(),
                       [](const auto& a, const auto& b) { return a.second < b.second; });
  if (largest->second <= 0) return "";
  return fmt::format("+{:.3g} s {}", largest->second, largest->first);
}

}  // namespace runner::layout
