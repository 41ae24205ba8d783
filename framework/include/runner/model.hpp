// A model: a torch module built for the dataset's shapes, with the numbers the engine
// needs to report (parameters, FLOPs per sample).
#pragma once

#include <torch/nn/functional/loss.h>
#include <torch/nn/module.h>

#include <memory>
#include <string>
#include <vector>

#include "runner/dataset.hpp"
#include "runner/errors.hpp"
#include "runner/layer.hpp"
#include "runner/op.hpp"
#include "runner/techniques.hpp"

namespace runner {

struct ModelContext {
  DatasetInfo data;
  const OpLibrary* ops = nullptr;
  // The arithmetic of forward (train.precision), for an estimator sizing activations.
  Precision precision = Precision::fp32;
};

// One layer of a model's estimate (see Model::layers()). Bytes per sample, at the precision
// the estimate was asked for (ModelContext::precision).
struct LayerEstimate {
  int64_t parameters = 0;    // the parameters the layer owns
  double held_bytes = 0;     // what its forward leaves held for backward, output included
  double output_bytes = 0;   // its output alone: what a checkpointed next layer keeps
  double forward_flops = 0;  // per sample, as Layer::forward_flops_per_sample; 0: unknown
  // Parameters it reads that the layer at index tied_owner owns (Layer::tied_parameters()): a
  // pipeline stage without the owner keeps a copy.
  int64_t tied_parameters = 0;
  size_t tied_owner = 0;
};

// What a model would be, worked out from its options without building it, so that
// `runner --dry-run` can size a model too large to allocate here, and a strategy can plan
// its memory.
struct ModelEstimate {
  int64_t parameters = 0;
  double forward_flops_per_sample = 0;
  // The layers in order; empty when the model lists none (or its estimator does not say).
  std::vector<LayerEstimate> layers;
  // Bytes per sample a whole forward leaves held, when `layers` is empty.
  double held_bytes = 0;
  // Bytes per sample the loss adds at the end of forward and the start of backward (a
  // language model's log-probabilities and their gradient).
  double loss_bytes = 0;
  // Bytes of the model's buffers (BatchNorm statistics), not per sample.
  double buffer_bytes = 0;
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
