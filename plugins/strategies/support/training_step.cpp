// TrainingStep: micro-batches under autocast, loss scaling, clipping, the optimizer step; evaluate.
#include "runner/strategies/training_step.hpp"

#include <runner/compat.hpp>
#include <runner/errors.hpp>

#include <algorithm>

#include "runner/strategies/activation_checkpointing.hpp"
#include "runner/strategies/gradient_clipping.hpp"
#include "runner/strategies/micro_batches.hpp"

namespace runner::strategies {
namespace {

compat::AutocastState autocast_for(Precision precision) {
  switch (precision) {
    case Precision::bf16: return {true, c10::ScalarType::BFloat16};
    case Precision::fp16: return {true, c10::ScalarType::Half};
    case Precision::fp32: break;
  }
  return {false, c10::ScalarType::Float};
}

}  // namespace

std::vector<torch::Tensor> trainable_parameters(Model& model) {
  std::vector<torch::Tensor> parameters;
  for (const auto& p : model.parameters())
    if (p.requires_grad()) parameters.push_back(p);
  return parameters;
}

void check_layers_for_checkpointing(Model& model, const Techniques& techniques) {
  if (techniques.checkpoint_layers && model.layers().empty())
    throw ConfigError("train.activation_checkpointing = \"layers\", but the model lists no layers",
                      "set train.activation_checkpointing = \"none\" for this model");
}

torch::Tensor model_forward(Model& model, const torch::Tensor& inputs, bool checkpoint_layers) {
  if (!checkpoint_layers) return model.forward(inputs);
  Techniques checkpointing;
  checkpointing.checkpoint_layers = true;
  check_layers_for_checkpointing(model, checkpointing);
  torch::Tensor x = inputs;
  for (const auto& layer : model.layers()) x = checkpointed_forward(layer, x);
  return x;
}

void set_learning_rate(torch::optim::Optimizer& optimizer, double lr) {
  for (auto& group : optimizer.param_groups()) group.options().set_lr(lr);
}

TrainingStep::TrainingStep(std::shared_ptr<Model> model, std::vector<torch::Tensor> parameters,
                           Techniques techniques, torch::Device device,
                           std::shared_ptr<StepMeter> meter, Forward forward)
    : model_(std::move(model)),
      parameters_(std::move(parameters)),
      sharded_(parameters_),
      techniques_(techniques),
      device_type_(device.type()),
      meter_(std::move(meter)),
      forward_(std::move(forward)) {
  if (!forward_) {
    Model* m = model_.get();
    forward_ = [m](const torch::Tensor& inputs, bool checkpoint_layers) {
      return model_forward(*m, inputs, checkpoint_layers);
    };
  }
  check_layers_for_checkpointing(*model_, techniques_);
  if (techniques_.precision == Precision::fp16) {
    scaler_.emplace(techniques_.loss_scaling);
    scaler_->add_state_to(scaler_state_);
  }
}

StepResult TrainingStep::accumulate(const Batch& batch, const Hooks& hooks) {
  // Dropping the gradients instead of zeroing them: the first backward then writes them
  // fresh, without a memset and an addition.
  for (auto& p : parameters_) p.mutable_grad().reset();
  const std::vector<MicroBatch> micro = split_micro_batches(batch, techniques_.micro_batches);
  torch::Tensor loss_sum;
  std::vector<torch::Tensor> predictions;
  for (size_t i = 0; i < micro.size(); ++i) {
    const bool last = i + 1 == micro.size();
    meter_->forward_begins();
    torch::Tensor loss;
    {
      compat::AutocastScope autocast(device_type_, autocast_for(techniques_.precision));
      torch::Tensor outputs = forward_(micro[i].batch.inputs, techniques_.checkpoint_layers);
      loss = model_->loss(outputs, micro[i].batch.targets);
      predictions.push_back(predictions_of(outputs));
    }
    torch::Tensor weighted = weighted_loss(loss, micro[i], micro.size());
    loss_sum = loss_sum.defined() ? loss_sum + weighted.detach() : weighted.detach();
    meter_->forward_ends();
    if (hooks.before_backward) hooks.before_backward(last);
    (scaler_ ? scaler_->scale_loss(weighted) : weighted).backward();
    if (hooks.after_backward) hooks.after_backward(last);
    meter_->backward_ends();
  }
  StepResult result;
  result.loss = loss_sum;
  result.predictions = joined_predictions(predictions);
  return result;
}

void TrainingStep::apply(torch::optim::Optimizer& optimizer, StepResult& result,
                         const SumOverShards& sum) {
  const bool finite = !scaler_ || scaler_->unscale(parameters_, sum);
  if (finite) {
    if (techniques_.grad_clip_norm > 0)
      clip_gradient_norm(sharded_, techniques_.grad_clip_norm, sum, whole_);
    optimizer.step();
  }
  if (scaler_) {
    scaler_->update(finite);
    result.skipped = !finite;
    result.loss_scale = scaler_->scale();
  }
  meter_->step_ends();
}

void TrainingStep::set_whole_parameters(const std::vector<torch::Tensor>& whole) {
  whole_ = whole;
  sharded_.clear();
  for (const auto& p : parameters_) {
    const bool is_whole = std::any_of(whole_.begin(), whole_.end(),
                                      [&](const torch::Tensor& w) { return w.is_same(p); });
    if (!is_whole) sharded_.push_back(p);
  }
}

StepResult TrainingStep::run(const Batch& batch, torch::optim::Optimizer& optimizer,
                             const Hooks& hooks, const SumOverShards& sum) {
  StepResult result = accumulate(batch, hooks);
  apply(optimizer, result, sum);
  return result;
}

torch::Tensor TrainingStep::loss_for_backward(const torch::Tensor& loss) const {
  return scaler_ ? scaler_->scale_loss(loss) : loss;
}

compat::AutocastState TrainingStep::autocast() const { return autocast_for(techniques_.precision); }

StepResult TrainingStep::evaluate(const Batch& batch) {
  c10::InferenceMode inference;
  compat::AutocastScope autocast(device_type_, autocast_for(techniques_.precision));
  torch::Tensor outputs = forward_(batch.inputs, false);
  StepResult result;
  result.loss = model_->loss(outputs, batch.targets);
  result.predictions = predictions_of(outputs);
  return result;
}

std::vector<StatePiece> TrainingStep::state_pieces(bool saved) {
  return scaler_state_.pieces(saved);
}

void TrainingStep::state_loaded() { scaler_state_.loaded(); }

}  // namespace runner::strategies
