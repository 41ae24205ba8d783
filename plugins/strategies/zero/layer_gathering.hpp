// Stage 3's forward: the units a layer reads are gathered just before it runs (the next
// layer's gather started meanwhile) and freed after it; in backward they are gathered again
// before the layer's backward (the previous layer's started meanwhile) and freed once their
// gradients are taken (GradientReduction's completion). A model that lists no layers is one
// step: all its units for the whole forward.
#pragma once

#include <runner/model.hpp>

#include <functional>
#include <memory>
#include <vector>

#include <runner/strategies/sharded_unit.hpp>

namespace runner::strategies {

class LayerGathering {
 public:
  struct Step {
    // input -> output, its activations recomputed in backward or not
    std::function<torch::Tensor(const torch::Tensor& x, bool checkpoint)> run;
    std::vector<ShardedUnit*> units;  // the ones it reads
  };

  // `pinned`: units gathered once and kept (parameters no layer lists).
  LayerGathering(std::vector<Step> steps, std::vector<ShardedUnit*> pinned, bool prefetch);

  // TrainingStep's forward. With grad mode on (training) each step's output passes a
  // marker whose backward gathers the step's units.
  torch::Tensor forward(const torch::Tensor& inputs, bool checkpoint_layers);

  // Frees a unit whose gradients backward has all taken, unless it is pinned.
  void backward_done_with(ShardedUnit& unit);

  // Every unit gathered, to read the whole model.
  void gather_all();
  // After the optimizer stepped the masters: gathered values are stale; pinned units are
  // gathered again.
  void after_step();

 private:
  void gather(size_t step);
  void prefetch(size_t step);
  void release_after_forward(size_t step);
  bool pinned(const ShardedUnit& unit) const;

  std::vector<Step> steps_;
  std::vector<ShardedUnit*> pinned_;
  bool prefetch_;
};

// The steps of a model's layers (or of the whole model) and the units each reads, given
// which unit holds each parameter.
std::vector<LayerGathering::Step> gathering_steps(
    Model& model, const std::function<ShardedUnit*(const torch::Tensor&)>& unit_of);

}  // namespace runner::strategies
