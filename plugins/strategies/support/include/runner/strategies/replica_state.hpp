// The training state of a strategy whose ranks each hold the whole model (single, dp, ddp):
// the model's parameters and buffers, the optimizer's state and the loss scale, every piece
// whole. Rank 0 saves it; every rank loads it.
#pragma once

#include <runner/model.hpp>

#include <memory>
#include <vector>

#include "runner/strategies/state_pieces.hpp"
#include "runner/strategies/training_step.hpp"

namespace runner::strategies {

class ReplicaState {
 public:
  // `parameters`: the optimizer's, in its order, each a parameter of `model`.
  ReplicaState(Model& model, torch::optim::Optimizer& optimizer,
               const std::vector<torch::Tensor>& parameters, TrainingStep& step, bool saves);

  std::vector<StatePiece> pieces();
  void loaded();

 private:
  Model& model_;
  TrainingStep& step_;
  bool saves_;
  OptimizerState optimizer_;
};

}  // namespace runner::strategies
