#include "data_parallel.hpp"

#include "parallel_apply.hpp"
#include "scatter_gather.hpp"

namespace runner::strategies {

DataParallel::DataParallel(std::vector<torch::Device> devices, const StrategyContext& context)
    : replicas_(std::move(devices), context.model, context.make_model),
      parameters_(context.model->parameters()),
      optimizer_(context.make_optimizer(parameters_)),
      meter_(context.meter) {}

torch::Tensor DataParallel::forward(const torch::Tensor& inputs) {
  std::vector<torch::Tensor> chunks = scatter(inputs, replicas_.size());  // (n_i, ...)
  std::vector<torch::Tensor> outputs(chunks.size());
  const auto& devices = replicas_.devices();
  parallel_apply(devices, chunks.size(), [&](size_t i) {
    outputs[i] = replicas_.model(i).forward(chunks[i].to(devices[i]));
  });
  return gather(outputs, devices[0]);  // (N, ...)
}

StepResult DataParallel::train_step(const Batch& batch) {
  replicas_.drop_gradients();
  meter_->step_begins();
  replicas_.follow_master();
  torch::Tensor outputs = forward(batch.inputs);
  torch::Tensor loss = replicas_.model(0).loss(outputs, batch.targets);
  meter_->forward_ends();
  // Through the gathers into every replica's graph, each device's part on its own device.
  loss.backward();
  replicas_.sum_gradients_into_master();
  meter_->backward_ends();
  optimizer_->step();
  meter_->step_ends();
  return {loss.detach(), outputs.detach()};
}

StepResult DataParallel::eval_step(const Batch& batch) {
  // Before InferenceMode: the copies write into the replicas' ordinary tensors.
  replicas_.follow_master();
  c10::InferenceMode inference;
  torch::Tensor outputs = forward(batch.inputs);
  return {replicas_.model(0).loss(outputs, batch.targets), outputs};
}

void DataParallel::set_learning_rate(double lr) {
  for (auto& group : optimizer_->param_groups()) group.options().set_lr(lr);
}

}  // namespace runner::strategies
