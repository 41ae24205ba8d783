// A model: a torch module built for the dataset's shapes, with the numbers the engine
// needs to report (parameters, FLOPs per sample).
#pragma once

#include <torch/torch.h>

#include <memory>
#include <vector>

#include "runner/dataset.hpp"
#include "runner/layer.hpp"
#include "runner/op.hpp"

namespace runner {

struct ModelContext {
  DatasetInfo data;
  const OpLibrary* ops = nullptr;
};

// What a model would be, worked out from its options without building it, so that
// `runner --dry-run` can size a model too large to allocate here.
struct ModelEstimate {
  int64_t parameters = 0;
  double forward_flops_per_sample = 0;
};

class Model : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(const torch::Tensor& inputs) = 0;

  // outputs: what forward returned; targets: Batch::targets. A scalar, mean over the batch.
  virtual torch::Tensor loss(const torch::Tensor& outputs, const torch::Tensor& targets) {
    return torch::nn::functional::cross_entropy(outputs, targets);
  }

  // The model as a chain of layers: folding forward over them, from the inputs, gives
  // forward(inputs). Empty: the model cannot be cut (no activation checkpointing).
  virtual std::vector<std::shared_ptr<Layer>> layers() { return {}; }

  // Multiply-adds of one sample's forward pass, times two (FLOPs). Training costs about 3x.
  virtual double forward_flops_per_sample() const = 0;

  int64_t parameter_count() const {
    int64_t n = 0;
    for (const auto& p : parameters()) n += p.numel();
    return n;
  }
};

}  // namespace runner
