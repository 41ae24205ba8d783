// Gradient clipping by the global L2 norm, as torch.nn.utils.clip_grad_norm_: over every
// parameter of the model, also when each rank holds a shard of the gradients.
#pragma once

#include <torch/torch.h>

#include <vector>

#include "runner/strategies/loss_scaler.hpp"

namespace runner::strategies {

// The global norm of the defined gradients of `parameters` (their shards' squares summed over
// the ranks by `sum`) and of `whole` (gradients every rank of `sum` holds alike, counted once);
// when it is over max_norm every gradient is multiplied by max_norm / norm, so the norm
// becomes max_norm. Returns the norm before clipping.
double clip_gradient_norm(const std::vector<torch::Tensor>& parameters, double max_norm,
                          const SumOverShards& sum = {},
                          const std::vector<torch::Tensor>& whole = {});

}  // namespace runner::strategies
