// A pipeline's training state as checkpoint pieces, named as the whole model's: a checkpoint
// of k stages loads into another cut, another strategy or one process.
#include <unordered_set>

#include "pipeline_strategy.hpp"

namespace runner::strategies {

std::vector<StatePiece> PipelineStrategy::state_pieces() {
  const auto names = names_of(*model_);
  const bool saves = pipeline_index_ == 0;  // the other pipelines are its replicas
  if (!optimizer_state_)
    optimizer_state_ = std::make_unique<OptimizerState>(
        *optimizer_,
        units_.empty() ? whole_placements(*model_, owned_) : master_placements(units_, *model_));
  std::vector<StatePiece> pieces;
  std::unordered_set<const void*> listed;
  auto add_whole = [&](const torch::Tensor& tensor, bool saved) {
    if (!listed.insert(tensor.unsafeGetTensorImpl()).second) return;
    const std::string& name = names.at(tensor.unsafeGetTensorImpl());
    pieces.push_back(piece_of(tensor.detach(), whole_placement(name, tensor), "model/", saved));
  };
  if (units_.empty()) {
    for (const auto& p : owned_) add_whole(p, saves);
  } else {
    // zero_stage 1: the masters are the values the parameters are made from.
    const auto placements = master_placements(units_, *model_);
    for (size_t u = 0; u < units_.size(); ++u)
      for (const auto& placement : placements[u])
        pieces.push_back(piece_of(units_[u]->master(), placement, "model/", true));
    for (const auto& p : owned_) listed.insert(p.unsafeGetTensorImpl());
  }
  // Frozen weights and buffers of the stage's layers; a tied weight another stage owns is
  // only loaded here, the owner saves it.
  for (const auto& layer : layers_) {
    for (const auto& p : layer->parameters()) add_whole(p, saves);
    for (const auto& buffer : layer->buffers()) add_whole(buffer, saves);
  }
  for (const auto& t : tied_) add_whole(t.weight, false);
  for (auto& piece : optimizer_state_->pieces(saves || !units_.empty()))
    pieces.push_back(std::move(piece));
  for (auto& piece : step_->state_pieces(world_->rank() == 0)) pieces.push_back(std::move(piece));
  return pieces;
}

void PipelineStrategy::state_loaded() {
  optimizer_state_->loaded();
  step_->state_loaded();
  share_updates();
}

}  // namespace runner::strategies
