// One GPT-2 block, pre-LayerNorm: x + attn(ln_1(x)), then x + mlp(ln_2(x)).
#pragma once

#include <runner/layer.hpp>
#include <runner/op.hpp>

#include <torch/torch.h>

#include <memory>
#include <vector>

#include "attention.hpp"

namespace gpt2 {

// hidden -> 4 * hidden, the activation op, -> hidden; dropout on the way out.
class Mlp : public torch::nn::Module {
 public:
  Mlp(const BlockSizes& sizes, std::shared_ptr<const runner::Op> activation);

  torch::Tensor forward(const torch::Tensor& x);  // (B, T, hidden) -> (B, T, hidden)

  // Keeps this rank's part of `group`: its rows of c_fc (column-parallel) and columns of
  // c_proj (row-parallel; its bias stays whole). Returns the parameters split.
  std::vector<torch::Tensor> split(std::shared_ptr<runner::Communicator> group);

 private:
  std::shared_ptr<const runner::Op> activation_;
  std::shared_ptr<runner::Communicator> group_;  // tensor-parallel; none when whole
  torch::nn::Linear c_fc_{nullptr};
  torch::nn::Linear c_proj_{nullptr};
  torch::nn::Dropout dropout_{nullptr};
};

class Block : public runner::Layer {
 public:
  Block(const BlockSizes& sizes, std::shared_ptr<const runner::Op> activation);

  torch::Tensor forward(const torch::Tensor& x) override;  // (B, T, hidden) -> (B, T, hidden)

  double forward_flops_per_sample() const override { return forward_flops_; }

  // Splits the attention and the MLP over `group`; the LayerNorms stay whole.
  std::vector<torch::Tensor> split(const std::shared_ptr<runner::Communicator>& group);

 private:
  torch::nn::LayerNorm ln_1_{nullptr};
  std::shared_ptr<CausalSelfAttention> attn_;
  torch::nn::LayerNorm ln_2_{nullptr};
  std::shared_ptr<Mlp> mlp_;
  double forward_flops_;
};

}  // namespace gpt2
