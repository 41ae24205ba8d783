// The first and last of gpt2's layers, around its blocks: the embedding of tokens and
// positions, and the LM head tied to the token embedding. The modules are the model's own
// (registered there under wte, wpe, drop, ln_f), shared with these layers.
#pragma once

#include <runner/layer.hpp>

#include <torch/torch.h>

namespace gpt2 {

class Embedding : public runner::Layer {
 public:
  Embedding(torch::nn::Embedding wte, torch::nn::Embedding wpe, torch::nn::Dropout drop);

  // (B, T) int64 token ids, T at most the position table's length -> (B, T, hidden)
  torch::Tensor forward(const torch::Tensor& tokens) override;

 private:
  torch::nn::Embedding wte_, wpe_;
  torch::nn::Dropout drop_;
};

// The final LayerNorm, then logits against the token embedding's weight (tied).
class Head : public runner::Layer {
 public:
  // forward_flops: of one sample (head_forward_flops)
  Head(torch::nn::LayerNorm ln_f, torch::nn::Embedding wte, double forward_flops);

  torch::Tensor forward(const torch::Tensor& x) override;  // (B, T, hidden) -> (B, T, vocab)
  double forward_flops_per_sample() const override { return forward_flops_; }
  // The token embedding's weight, which the Embedding layer owns.
  std::vector<torch::Tensor> tied_parameters() const override { return {wte_->weight}; }

 private:
  torch::nn::LayerNorm ln_f_;
  torch::nn::Embedding wte_;  // not registered here: its weight is the Embedding's
  double forward_flops_;
};

}  // namespace gpt2
