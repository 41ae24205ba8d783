#include "single_strategy.hpp"

namespace runner::strategies {

void SingleStrategy::setup(const StrategyContext& context) {
  model_ = context.model;
  parameters_ = model_->parameters();
  optimizer_ = context.make_optimizer(parameters_);
  meter_ = context.meter;
}

StepResult SingleStrategy::train_step(const Batch& batch) {
  // Dropping the gradients instead of zeroing them: backward then writes them fresh,
  // without a memset and an accumulation.
  for (auto& p : parameters_) p.mutable_grad().reset();
  meter_->step_begins();
  torch::Tensor outputs = model_->forward(batch.inputs);
  torch::Tensor loss = model_->loss(outputs, batch.targets);
  meter_->forward_ends();
  loss.backward();
  meter_->backward_ends();
  optimizer_->step();
  meter_->step_ends();
  return {loss.detach(), outputs.detach()};
}

StepResult SingleStrategy::eval_step(const Batch& batch) {
  c10::InferenceMode inference;
  torch::Tensor outputs = model_->forward(batch.inputs);
  return {model_->loss(outputs, batch.targets), outputs};
}

void SingleStrategy::set_learning_rate(double lr) {
  for (auto& group : optimizer_->param_groups()) group.options().set_lr(lr);
}

}  // namespace runner::strategies
