// fp16's dynamic loss scaling (see LossScaling in runner/techniques.hpp): small fp16
// gradients would flush to zero, so the loss is scaled up before backward and the gradients
// scaled back down before the optimizer; an overflow skips the step and lowers the scale.
#pragma once

#include <runner/techniques.hpp>

#include <torch/torch.h>
#include "runner/strategies/state_pieces.hpp"

#include <functional>
#include <vector>

namespace runner::strategies {

// Sums a tensor over the ranks that share the gradients' shards; nothing for whole gradients.
using SumOverShards = std::function<void(torch::Tensor&)>;

class LossScaler {
 public:
  explicit LossScaler(LossScaling settings);

  double scale() const { return scale_; }
  torch::Tensor scale_loss(const torch::Tensor& loss) const { return loss * scale_; }

  // Divides every defined gradient of `parameters` by the scale, in place. True when all of
  // them (on every shard) are finite.
  bool unscale(const std::vector<torch::Tensor>& parameters, const SumOverShards& sum = {}) const;

  // After a step: backs off when it overflowed, grows after growth_interval good steps.
  void update(bool finite);

  // The scale and the count of good steps, to save and load.
  void add_state_to(ScalarPieces& pieces);

 private:
  LossScaling settings_;
  double scale_;
  int64_t good_steps_ = 0;
};

}  // namespace runner::strategies
