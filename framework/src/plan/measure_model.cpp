// A model's estimate measured on the built model, for models without an estimator.
#include "plan/measure_model.hpp"

#include <runner/compat.hpp>

#include <runner/errors.hpp>

#include <unordered_map>

#include "measure/cpu_memory.hpp"

namespace runner::plan {
namespace {

// Puts the model's buffers back when it goes: a training forward updates BatchNorm's
// running statistics.
class KeepBuffers {
 public:
  explicit KeepBuffers(Model& model) {
    for (const auto& b : model.buffers()) saved_.emplace_back(b, b.clone());
  }
  ~KeepBuffers() {
    torch::NoGradGuard no_grad;
    for (auto& [buffer, copy] : saved_) buffer.copy_(copy);
  }

 private:
  std::vector<std::pair<torch::Tensor, torch::Tensor>> saved_;
};

compat::AutocastState autocast_for(Precision precision) {
  // CPU autocast has bf16 only; fp16 keeps 16-bit copies of the same size.
  return {precision != Precision::fp32, c10::ScalarType::BFloat16};
}

int64_t owned_parameters(const Layer& layer) {
  int64_t n = 0;
  for (const auto& p : layer.parameters()) n += p.numel();
  return n;
}

// Each layer's tied parameters (read there, registered by another layer) and their owner.
void count_tied(const std::vector<std::shared_ptr<Layer>>& layers,
                std::vector<LayerEstimate>& estimates) {
  std::unordered_map<const void*, size_t> owner;
  for (size_t l = 0; l < layers.size(); ++l)
    for (const auto& p : layers[l]->parameters()) owner.emplace(p.unsafeGetTensorImpl(), l);
  for (size_t l = 0; l < layers.size(); ++l)
    for (const auto& t : layers[l]->tied_parameters()) {
      const auto found = owner.find(t.unsafeGetTensorImpl());
      if (found == owner.end() || found->second == l) continue;
      estimates[l].tied_parameters += t.numel();
      estimates[l].tied_owner = found->second;
    }
}

}  // namespace

namespace {

// Bytes the model's layers (or its whole forward) and its loss leave held on `batch`.
ModelEstimate held_on(Model& model, const Batch& batch, Precision precision) {
  ModelEstimate e;
  compat::AutocastScope autocast(c10::DeviceType::CPU, autocast_for(precision));
  const int64_t start = measure::cpu_bytes_in_use();
  torch::Tensor x = batch.inputs;
  const auto layers = model.layers();
  int64_t before = start;
  for (const auto& layer : layers) {
    x = layer->forward(x);
    const int64_t now = measure::cpu_bytes_in_use();
    LayerEstimate measured;
    measured.parameters = owned_parameters(*layer);
    measured.held_bytes = static_cast<double>(now - before);
    measured.output_bytes = static_cast<double>(x.nbytes());
    measured.forward_flops = layer->forward_flops_per_sample();
    e.layers.push_back(measured);
    before = now;
  }
  count_tied(layers, e.layers);
  if (layers.empty()) {
    x = model.forward(x);
    e.held_bytes = static_cast<double>(measure::cpu_bytes_in_use() - start);
  }
  const int64_t before_loss = measure::cpu_bytes_in_use();
  torch::Tensor loss = model.loss(x, batch.targets);
  e.loss_bytes = static_cast<double>(measure::cpu_bytes_in_use() - before_loss);
  return e;
}

// (two - one): per sample, without what a forward holds once whatever the batch (16-bit copies
// of the weights, a sequence's positions).
double slope(double one, double two) { return two - one; }

}  // namespace

KeepRandomState::KeepRandomState() : state_(at::detail::getDefaultCPUGenerator().get_state()) {}

KeepRandomState::~KeepRandomState() {
  at::Generator g = at::detail::getDefaultCPUGenerator();
  g.set_state(state_);
}

ModelEstimate measure_model(Model& model, const Batch& samples, Precision precision) {
  measure::count_cpu_allocations();
  KeepRandomState keep_random;
  KeepBuffers keep_buffers(model);
  const bool was_training = model.is_training();
  model.train();
  RUNNER_CHECK(samples.inputs.size(0) >= 2, "measuring a model takes 2 samples");
  const Batch first{samples.inputs.narrow(0, 0, 1), samples.targets.narrow(0, 0, 1)};
  const Batch both{samples.inputs.narrow(0, 0, 2), samples.targets.narrow(0, 0, 2)};
  const ModelEstimate one = held_on(model, first, precision);
  ModelEstimate e = held_on(model, both, precision);
  model.train(was_training);
  for (size_t i = 0; i < e.layers.size(); ++i) {
    e.layers[i].held_bytes = slope(one.layers[i].held_bytes, e.layers[i].held_bytes);
    e.layers[i].output_bytes = slope(one.layers[i].output_bytes, e.layers[i].output_bytes);
  }
  e.held_bytes = slope(one.held_bytes, e.held_bytes);
  e.loss_bytes = slope(one.loss_bytes, e.loss_bytes);
  e.parameters = model.parameter_count();
  e.forward_flops_per_sample = model.forward_flops_per_sample();
  for (const auto& b : model.buffers()) e.buffer_bytes += static_cast<double>(b.nbytes());
  return e;
}

}  // namespace runner::plan
