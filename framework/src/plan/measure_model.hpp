// A model's estimate measured on the model itself, for models without an estimator: one
// forward (in training mode, under the run's autocast) on a batch of real samples, with the
// counting allocator telling what each layer leaves held. The random-number state and the
// buffers are left as they were, so measuring does not change the training that follows.
#pragma once

#include <runner/model.hpp>

namespace runner::plan {

// Restores the CPU generator's state when it goes: building a model or running dropout draws
// from it, and an estimate must not change the training that follows.
class KeepRandomState {
 public:
  KeepRandomState();
  ~KeepRandomState();
  KeepRandomState(const KeepRandomState&) = delete;
  KeepRandomState& operator=(const KeepRandomState&) = delete;

 private:
  torch::Tensor state_;
};

// `samples`: 2 samples of the training split, on the CPU, where `model` is. Bytes per sample
// are what the forward of 2 holds beyond the forward of 1.
ModelEstimate measure_model(Model& model, const Batch& samples, Precision precision);

}  // namespace runner::plan
