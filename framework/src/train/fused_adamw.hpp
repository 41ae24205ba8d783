// AdamW whose update of a float parameter on the CPU is one pass over its four tensors.
#pragma once

#include <torch/torch.h>

namespace runner::train {

// LibTorch's AdamW (the same options, state and checkpoints) makes each parameter's update
// from nine element-wise operations, two of them allocating a temporary: about three times the
// memory traffic of reading the parameter, its gradient and both moments once and writing three
// of them back, which this does. Where any parameter is not a contiguous float CPU tensor, or
// amsgrad is on, the step is LibTorch's.
class FusedAdamW : public torch::optim::AdamW {
 public:
  using torch::optim::AdamW::AdamW;

  torch::Tensor step(LossClosure closure = nullptr) override;

  // Whether a step now, with the gradients as they are, takes the one-pass update.
  bool fuses_next_step() const;

 private:
  void step_fused();
};

}  // namespace runner::train
