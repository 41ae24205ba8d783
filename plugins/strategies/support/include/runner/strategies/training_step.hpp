// One rank's training step with the [train] techniques, written once for every strategy:
// the rank's batch split into micro-batches, each one's forward (under autocast, through
// checkpointed layers) and backward with the gradients summed in .grad; then fp16's
// unscaling and overflow check, clipping by the global norm, and the optimizer's step.
// A strategy adds its own communication through the hooks (ddp arms its buckets before the
// last micro-batch's backward) or between accumulate() and apply() (sharded gradients).
#pragma once

#include <runner/compat.hpp>
#include <runner/strategy.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "runner/strategies/loss_scaler.hpp"

namespace runner::strategies {

// model.forward(inputs), or the fold of its layers each checkpointed. Throws ConfigError
// when checkpointing is asked of a model that lists no layers.
torch::Tensor model_forward(Model& model, const torch::Tensor& inputs, bool checkpoint_layers);
// The ConfigError, thrown at setup rather than at the first step.
void check_layers_for_checkpointing(Model& model, const Techniques& techniques);

void set_learning_rate(torch::optim::Optimizer& optimizer, double lr);

// The model's parameters that require a gradient: those its optimizer steps.
std::vector<torch::Tensor> trainable_parameters(Model& model);

class TrainingStep {
 public:
  // inputs on the device -> outputs, through checkpointed layers or not; by default
  // model_forward of the model.
  using Forward = std::function<torch::Tensor(const torch::Tensor& inputs, bool checkpoint_layers)>;
  struct Hooks {
    std::function<void(bool last)> before_backward;  // of each micro-batch
    std::function<void(bool last)> after_backward;
  };

  // `parameters`: the ones the optimizer steps, whose gradients are dropped, unscaled and
  // clipped.
  TrainingStep(std::shared_ptr<Model> model, std::vector<torch::Tensor> parameters,
               Techniques techniques, torch::Device device, std::shared_ptr<StepMeter> meter,
               Forward forward = {});

  // accumulate() then apply(): what single and ddp do.
  StepResult run(const Batch& batch, torch::optim::Optimizer& optimizer, const Hooks& hooks = {},
                 const SumOverShards& sum = {});

  // Drops the gradients, then forward and backward of every micro-batch. The result's loss
  // is the batch's mean loss; skipped and loss_scale are apply()'s to fill.
  StepResult accumulate(const Batch& batch, const Hooks& hooks = {});
  // Of the parameters, those every rank of apply()'s `sum` holds whole, with the same gradient
  // (a tensor-parallel group's LayerNorms): counted once in the clipping norm.
  void set_whole_parameters(const std::vector<torch::Tensor>& whole);

  // Unscales (fp16), clips, and steps the optimizer unless the gradients overflowed; calls
  // the meter's step_ends. `sum` adds a scalar over the ranks holding gradient shards.
  void apply(torch::optim::Optimizer& optimizer, StepResult& result, const SumOverShards& sum = {});

  // A test step: forward and loss under autocast, in inference mode.
  StepResult evaluate(const Batch& batch);

  // For strategies that run forward and backward themselves (a pipeline's stages) and call
  // apply(): the loss backward starts from (fp16: times the loss scale), and the autocast the
  // forward and the loss run under.
  torch::Tensor loss_for_backward(const torch::Tensor& loss) const;
  compat::AutocastState autocast() const;

  const Techniques& techniques() const { return techniques_; }

  // fp16's loss scale and its count of good steps (nothing in other precisions), as pieces
  // every rank holds the same of; state_loaded() after the host read them in.
  std::vector<StatePiece> state_pieces(bool saved);
  void state_loaded();

 private:
  std::shared_ptr<Model> model_;
  std::vector<torch::Tensor> parameters_;
  std::vector<torch::Tensor> sharded_;  // of parameters_, all but whole_
  std::vector<torch::Tensor> whole_;
  Techniques techniques_;
  c10::DeviceType device_type_;
  std::shared_ptr<StepMeter> meter_;
  Forward forward_;
  std::optional<LossScaler> scaler_;  // fp16 only
  ScalarPieces scaler_state_;
};

}  // namespace runner::strategies
