// A strategy owns the training step: how the model is placed, how gradients are made and
// applied, and how metrics are reduced across ranks.
#pragma once

#include <torch/optim/optimizer.h>
#include <torch/types.h>

#include <functional>
#include <memory>
#include <vector>

#include "runner/communicator.hpp"
#include "runner/dataset.hpp"
#include "runner/model.hpp"
#include "runner/techniques.hpp"
#include "runner/training_state.hpp"

namespace runner {

using OptimizerFactory =
    std::function<std::unique_ptr<torch::optim::Optimizer>(std::vector<torch::Tensor> params)>;

// The host's clock and memory gauge inside a step. A strategy calls these at the edges of the
// phases of its train_step, so the host can report forward, backward and optimizer time and
// the memory the forward pass leaves held for backward (the saved activations). With
// micro-batches, forward_begins, forward_ends and backward_ends come once per micro-batch.
// The host's meter waits for the device before it reads its clock; this default measures
// nothing.
class StepMeter {
 public:
  virtual ~StepMeter() = default;
  virtual void forward_begins() {}
  virtual void forward_ends() {}
  virtual void backward_ends() {}
  virtual void step_ends() {}  // after the optimizer
  // Time a step spent waiting for another rank's data (a pipeline stage's receives).
  virtual void waited(double seconds) { (void)seconds; }
};

struct StrategyContext {
  std::shared_ptr<Model> model;  // on the CPU: the strategy places it on `device`
  torch::Device device = torch::kCPU;
  Techniques techniques;
  OptimizerFactory make_optimizer;
  int64_t seed = 0;
  std::shared_ptr<StepMeter> meter = std::make_shared<StepMeter>();
  // This run's ranks; world_size 1 unless the strategy declares the distributed keys.
  std::shared_ptr<Communicator> communicator = std::make_shared<SingleRankCommunicator>();
  // A fresh model like `model` (same options, on the CPU, new initialization): replicas.
  std::function<std::shared_ptr<Model>()> make_model;
  // Splits `model` over a tensor-parallel group (TensorSplitter); empty when the model
  // registered no tensor parallelism.
  std::function<std::vector<torch::Tensor>(std::shared_ptr<Communicator> group)>
      split_tensor_parallel;
};

// What a step reports, small whatever the model: the predictions, not the outputs they come
// from (a language model's logits of a whole batch would be kept across micro-batches).
struct StepResult {
  torch::Tensor loss;         // scalar, detached, fp32: mean loss over the batch
  torch::Tensor predictions;  // int64 argmax of the outputs' last dim: (N), or (N, T) per token
  bool skipped = false;       // fp16: the gradients overflowed and the optimizer did not step
  double loss_scale = 0.0;    // fp16: the scale after this step; 0 without loss scaling
};

class Strategy {
 public:
  virtual ~Strategy() = default;

  virtual void setup(const StrategyContext& context) = 0;
  // One optimizer step on a batch already on the device.
  virtual StepResult train_step(const Batch& batch) = 0;
  virtual StepResult eval_step(const Batch& batch) = 0;
  virtual void set_learning_rate(double lr) = 0;

  // Ranks among which each batch is divided: each takes train.batch_size / this. The other
  // ranks share a batch (a pipeline's stages, a tensor-parallel group). Default: every rank.
  virtual int data_parallel_degree(int world_size) const { return world_size; }
  // Whether this rank's steps give the loss and predictions (a pipeline's last stage, one rank
  // of a tensor-parallel group). The host counts metrics of reporting ranks only, so ranks
  // that share a batch do not count it twice.
  virtual bool reports_metrics() const { return true; }

  // The samples of a split's epoch (a permutation, (N) int64) that this rank takes. The
  // engine cuts the result into batches of train.batch_size / data_parallel_degree().
  virtual torch::Tensor shard_samples(const torch::Tensor& order, Split split) const {
    (void)split;
    return order;
  }

  // This rank's training state: parameters, buffers, the optimizer's state and the loss
  // scale, each a piece of the whole tensor it is part of. Saved as they are; to load, the
  // host copies the saved values into them and then calls state_loaded(). Empty (the
  // default): the strategy cannot save its state, and a checkpoint is refused at setup.
  virtual std::vector<StatePiece> state_pieces() { return {}; }
  // What follows a load: values derived from the pieces made again (copies shared with other
  // ranks, a counter kept outside a tensor).
  virtual void state_loaded() {}
};

}  // namespace runner
