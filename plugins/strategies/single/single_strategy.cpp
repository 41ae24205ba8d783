// SingleStrategy: the model on its device, its optimizer, and the training step's run and evaluate.
#include "single_strategy.hpp"

namespace runner::strategies {

void SingleStrategy::setup(const StrategyContext& context) {
  context.model->to(context.device);
  std::vector<torch::Tensor> parameters = context.model->parameters();
  optimizer_ = context.make_optimizer(parameters);
  step_ = std::make_unique<TrainingStep>(context.model, parameters, context.techniques,
                                         context.device, context.meter);
  state_ = std::make_unique<ReplicaState>(*context.model, *optimizer_, parameters, *step_, true);
}

StepResult SingleStrategy::train_step(const Batch& batch) { return step_->run(batch, *optimizer_); }

StepResult SingleStrategy::eval_step(const Batch& batch) { return step_->evaluate(batch); }

void SingleStrategy::set_learning_rate(double lr) {
  strategies::set_learning_rate(*optimizer_, lr);
}

}  // namespace runner::strategies
