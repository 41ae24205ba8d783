// Causal multi-head self-attention of a GPT-2 block: one fused linear makes queries, keys and
// values, runner::compat::causal_self_attention mixes them, a linear projects the heads back.
#pragma once

#include <runner/communicator.hpp>

#include <torch/torch.h>

#include <memory>
#include <vector>

namespace gpt2 {

// The sizes of one block's layers.
struct BlockSizes {
  int64_t hidden = 0;
  int64_t heads = 0;
  double dropout = 0.0;
  double projection_std = 0.0;  // of the two projections that add into the residual stream
  double forward_flops = 0.0;   // of one sample through the block (block_forward_flops)
};

class CausalSelfAttention : public torch::nn::Module {
 public:
  explicit CausalSelfAttention(const BlockSizes& sizes);

  // (B, T, hidden) -> (B, T, hidden); position t sees positions 0..t only.
  torch::Tensor forward(const torch::Tensor& x);

  // Keeps this rank's heads of `group`: their rows of q, k and v in c_attn (column-parallel)
  // and their columns of c_proj (row-parallel; its bias stays whole). Returns the parameters
  // split.
  std::vector<torch::Tensor> split(std::shared_ptr<runner::Communicator> group);

 private:
  // (B, T, heads * head_dim) -> (B, heads, T, head_dim), of this rank's heads
  torch::Tensor split_heads(const torch::Tensor& x) const;

  int64_t heads_;                                // of this rank
  std::shared_ptr<runner::Communicator> group_;  // tensor-parallel; none when whole
  double dropout_;
  torch::nn::Linear c_attn_{nullptr};  // hidden -> 3 * hidden: q, k, v side by side
  torch::nn::Linear c_proj_{nullptr};
  torch::nn::Dropout resid_dropout_{nullptr};
};

}  // namespace gpt2
