#include "single_strategy.hpp"

namespace runner::strategies {

void SingleStrategy::setup(const StrategyContext& context) {
  model_ = context.model;
  optimizer_ = context.make_optimizer(model_->parameters());
}

StepResult SingleStrategy::train_step(const Batch& batch) {
  optimizer_->zero_grad();
  torch::Tensor outputs = model_->forward(batch.inputs);
  torch::Tensor loss = model_->loss(outputs, batch.targets);
  loss.backward();
  optimizer_->step();
  return {loss.detach(), outputs.detach()};
}

StepResult SingleStrategy::eval_step(const Batch& batch) {
  torch::NoGradGuard no_grad;
  torch::Tensor outputs = model_->forward(batch.inputs);
  return {model_->loss(outputs, batch.targets), outputs};
}

void SingleStrategy::set_learning_rate(double lr) {
  for (auto& group : optimizer_->param_groups()) group.options().set_lr(lr);
}

}  // namespace runner::strategies
