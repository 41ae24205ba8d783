#include "attention.hpp"

#include <runner/compat.hpp>

#include <vector>

#include "init.hpp"

namespace gpt2 {

CausalSelfAttention::CausalSelfAttention(const BlockSizes& sizes)
    : heads_(sizes.heads), dropout_(sizes.dropout) {
  c_attn_ = register_module("c_attn", normal_linear(sizes.hidden, 3 * sizes.hidden, kInitStd));
  c_proj_ =
      register_module("c_proj", normal_linear(sizes.hidden, sizes.hidden, sizes.projection_std));
  resid_dropout_ = register_module("resid_dropout", torch::nn::Dropout(sizes.dropout));
}

torch::Tensor CausalSelfAttention::split_heads(const torch::Tensor& x) const {
  const int64_t hidden = x.size(2);
  return x.view({x.size(0), x.size(1), heads_, hidden / heads_}).transpose(1, 2);
}

torch::Tensor CausalSelfAttention::forward(const torch::Tensor& x) {
  const int64_t hidden = x.size(2);
  std::vector<torch::Tensor> qkv = c_attn_->forward(x).split(hidden, -1);  // 3 x (B, T, hidden)
  // (B, heads, T, head_dim)
  torch::Tensor mixed = runner::compat::causal_self_attention(
      split_heads(qkv[0]), split_heads(qkv[1]), split_heads(qkv[2]), dropout_, is_training());
  mixed = mixed.transpose(1, 2).reshape({x.size(0), x.size(1), hidden});  // (B, T, hidden)
  return resid_dropout_->forward(c_proj_->forward(mixed));
}

}  // namespace gpt2
