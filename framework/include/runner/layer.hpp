// A layer: one piece of a model whose forward takes the previous piece's output. A model that
// lists its layers (Model::layers()) can be cut by a strategy: each layer's activations
// recomputed in backward (activation checkpointing), layers placed on pipeline stages, or a
// layer's parameters gathered only while it runs.
#pragma once

#include <torch/nn/module.h>

#include <vector>

namespace runner {

class Layer : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(const torch::Tensor& x) = 0;

  // Parameters this layer uses but another layer owns (registers): a language model's head
  // tied to its token embedding. A strategy that runs a layer on its own (checkpointing,
  // gathering shards) needs every tensor the layer reads.
  virtual std::vector<torch::Tensor> tied_parameters() const { return {}; }

  // FLOPs (multiply-adds times two) of one sample's forward through this layer, for cutting a
  // model where its compute, not its weights, divides evenly; 0 when the layer does not say.
  virtual double forward_flops_per_sample() const { return 0; }
};

}  // namespace runner
