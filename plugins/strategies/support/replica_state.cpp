// ReplicaState: the pieces of a whole model, its optimizer and the loss scale, and their reload.
#include "runner/strategies/replica_state.hpp"

namespace runner::strategies {
ReplicaState::ReplicaState(Model& model, torch::optim::Optimizer& optimizer,
                           const std::vector<torch::Tensor>& parameters, TrainingStep& step,
                           bool saves)
    : model_(model),
      step_(step),
      saves_(saves),
      optimizer_(optimizer, whole_placements(model, parameters)) {}

std::vector<StatePiece> ReplicaState::pieces() {
  std::vector<StatePiece> pieces = model_pieces(model_, saves_);
  for (auto& piece : optimizer_.pieces(saves_)) pieces.push_back(std::move(piece));
  for (auto& piece : step_.state_pieces(saves_)) pieces.push_back(std::move(piece));
  return pieces;
}

void ReplicaState::loaded() {
  optimizer_.loaded();
  step_.state_loaded();
}

}  // namespace runner::strategies
