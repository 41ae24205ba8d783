// DataParallel: replicas placed, batches scattered and gathered, gradients summed into the master.
#include "data_parallel.hpp"

#include "parallel_apply.hpp"
#include "scatter_gather.hpp"

namespace runner::strategies {

namespace {

std::shared_ptr<Model> placed(const std::shared_ptr<Model>& model, torch::Device device) {
  model->to(device);
  return model;
}

}  // namespace

DataParallel::DataParallel(std::vector<torch::Device> devices, const StrategyContext& context)
    : replicas_(devices, placed(context.model, devices.at(0)), context.make_model),
      parameters_(context.model->parameters()),
      optimizer_(context.make_optimizer(parameters_)),
      step_(context.model, parameters_, context.techniques, devices.at(0), context.meter,
            [this](const torch::Tensor& inputs, bool checkpoint_layers) {
              return forward(inputs, checkpoint_layers);
            }),
      state_(*context.model, *optimizer_, parameters_, step_, true) {}

torch::Tensor DataParallel::forward(const torch::Tensor& inputs, bool checkpoint_layers) {
  std::vector<torch::Tensor> chunks = scatter(inputs, replicas_.size());  // (n_i, ...)
  std::vector<torch::Tensor> outputs(chunks.size());
  const auto& devices = replicas_.devices();
  const auto autocast = compat::AutocastState::of(devices[0].type());
  parallel_apply(devices, chunks.size(), [&](size_t i) {
    // Autocast is per thread: each replica's thread takes the caller's.
    compat::AutocastScope scope(devices[i].type(), autocast);
    outputs[i] = model_forward(replicas_.model(i), chunks[i].to(devices[i]), checkpoint_layers);
  });
  return gather(outputs, devices[0]);  // (N, ...)
}

// The loss's backward runs through the gathers into every replica's graph, each device's part
// on its own device; the replicas' gradients, summed over the micro-batches, go into the
// master's after the last.
StepResult DataParallel::train_step(const Batch& batch) {
  replicas_.drop_gradients();
  replicas_.follow_master();
  TrainingStep::Hooks hooks;
  hooks.after_backward = [this](bool last) {
    if (last) replicas_.sum_gradients_into_master();
  };
  return step_.run(batch, *optimizer_, hooks);
}

StepResult DataParallel::eval_step(const Batch& batch) {
  // Before InferenceMode: the copies write into the replicas' ordinary tensors.
  replicas_.follow_master();
  return step_.evaluate(batch);
}

void DataParallel::set_learning_rate(double lr) { strategies::set_learning_rate(*optimizer_, lr); }

}  // namespace runner::strategies
