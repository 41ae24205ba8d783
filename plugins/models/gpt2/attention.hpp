// Causal multi-head self-attention of a GPT-2 block: one fused linear makes queries, keys and
// values, runner::compat::causal_self_attention mixes them, a linear projects the heads back.
#pragma once

#include <torch/torch.h>

namespace gpt2 {

// The sizes of one block's layers.
struct BlockSizes {
  int64_t hidden = 0;
  int64_t heads = 0;
  double dropout = 0.0;
  double projection_std = 0.0;  // of the two projections that add into the residual stream
};

class CausalSelfAttention : public torch::nn::Module {
 public:
  explicit CausalSelfAttention(const BlockSizes& sizes);

  // (B, T, hidden) -> (B, T, hidden); position t sees positions 0..t only.
  torch::Tensor forward(const torch::Tensor& x);

 private:
  // (B, T, hidden) -> (B, heads, T, hidden / heads)
  torch::Tensor split_heads(const torch::Tensor& x) const;

  int64_t heads_;
  double dropout_;
  torch::nn::Linear c_attn_{nullptr};  // hidden -> 3 * hidden: q, k, v side by side
  torch::nn::Linear c_proj_{nullptr};
  torch::nn::Dropout resid_dropout_{nullptr};
};

}  // namespace gpt2
