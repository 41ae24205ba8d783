// LayerGathering: gathers, prefetches and frees each layer's units around forward and backward.
#include "layer_gathering.hpp"

#include <runner/strategies/activation_checkpointing.hpp>

#include <algorithm>

namespace runner::strategies {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

struct Callback : torch::CustomClassHolder {
  std::function<void()> run;
};

// Identity in forward; in backward runs `callback` before the gradient goes on into the
// step that made x, so the step's parameters are there when its backward needs them.
struct BeforeBackward : torch::autograd::Function<BeforeBackward> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x,
                               const c10::intrusive_ptr<Callback>& callback) {
    ctx->saved_data["callback"] = c10::IValue::make_capsule(callback);
    return x;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    c10::static_intrusive_pointer_cast<Callback>(ctx->saved_data["callback"].toCapsule())->run();
    return {grad_outputs[0], torch::Tensor()};
  }
};

void add_unique(std::vector<ShardedUnit*>& units, ShardedUnit* unit) {
  if (unit && std::find(units.begin(), units.end(), unit) == units.end()) units.push_back(unit);
}

}  // namespace

LayerGathering::LayerGathering(std::vector<Step> steps, std::vector<ShardedUnit*> pinned,
                               bool prefetch)
    : steps_(std::move(steps)), pinned_(std::move(pinned)), prefetch_(prefetch) {
  for (ShardedUnit* unit : pinned_) unit->finish_gather();
}

bool LayerGathering::pinned(const ShardedUnit& unit) const {
  return std::find(pinned_.begin(), pinned_.end(), &unit) != pinned_.end();
}

void LayerGathering::gather(size_t step) {
  for (ShardedUnit* unit : steps_[step].units) unit->start_gather();
  for (ShardedUnit* unit : steps_[step].units) unit->finish_gather();
}

void LayerGathering::prefetch(size_t step) {
  if (!prefetch_) return;
  for (ShardedUnit* unit : steps_[step].units) unit->start_gather();
}

void LayerGathering::release_after_forward(size_t step) {
  const bool last = step + 1 == steps_.size();
  for (ShardedUnit* unit : steps_[step].units) {
    const bool read_next =
        !last && std::find(steps_[step + 1].units.begin(), steps_[step + 1].units.end(), unit) !=
                     steps_[step + 1].units.end();
    if (!read_next && !pinned(*unit)) unit->release();
  }
}

torch::Tensor LayerGathering::forward(const torch::Tensor& inputs, bool checkpoint_layers) {
  const bool training = torch::GradMode::is_enabled();
  torch::Tensor x = inputs;
  for (size_t i = 0; i < steps_.size(); ++i) {
    gather(i);
    if (i + 1 < steps_.size()) prefetch(i + 1);
    x = steps_[i].run(x, checkpoint_layers);
    if (training && x.requires_grad()) {
      auto callback = c10::make_intrusive<Callback>();
      callback->run = [this, i] {
        gather(i);
        if (i > 0) prefetch(i - 1);
      };
      x = BeforeBackward::apply(x, callback);
    }
    // The last step's units are the first backward needs: kept when training.
    if (!(training && i + 1 == steps_.size())) release_after_forward(i);
  }
  return x;
}

void LayerGathering::backward_done_with(ShardedUnit& unit) {
  if (!pinned(unit)) unit.release();
}

void LayerGathering::gather_all() {
  for (size_t i = 0; i < steps_.size(); ++i) gather(i);
}

void LayerGathering::after_step() {
  for (const Step& step : steps_)
    for (ShardedUnit* unit : step.units) unit->release();
  for (ShardedUnit* unit : pinned_) {
    unit->release();
    unit->finish_gather();
  }
}

std::vector<LayerGathering::Step> gathering_steps(
    Model& model, const std::function<ShardedUnit*(const torch::Tensor&)>& unit_of) {
  std::vector<LayerGathering::Step> steps;
  const auto layers = model.layers();
  if (layers.empty()) {
    LayerGathering::Step whole;
    whole.run = [&model](const torch::Tensor& x, bool) { return model.forward(x); };
    for (const auto& p : model.parameters()) add_unique(whole.units, unit_of(p));
    steps.push_back(std::move(whole));
    return steps;
  }
  for (const auto& layer : layers) {
    LayerGathering::Step step;
    step.run = [layer](const torch::Tensor& x, bool checkpoint) {
      return checkpoint ? checkpointed_forward(layer, x) : layer->forward(x);
    };
    for (const auto& p : layer->parameters()) add_unique(step.units, unit_of(p));
    for (const auto& p : layer->tied_parameters()) add_unique(step.units, unit_of(p));
    steps.push_back(std::move(step));
  }
  return steps;
}

}  // namespace runner::strategies
