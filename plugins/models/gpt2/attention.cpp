// CausalSelfAttention: the fused q, k, v linear, the heads mixed, projected back; its split.
#include "attention.hpp"

#include <runner/compat.hpp>
#include <runner/tensor_parallel.hpp>

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
  const int64_t width = x.size(2);
  return x.view({x.size(0), x.size(1), heads_, width / heads_}).transpose(1, 2);
}

torch::Tensor CausalSelfAttention::forward(const torch::Tensor& x) {
  namespace tp = runner::tensor_parallel;
  const int64_t width = c_attn_->weight.size(0) / 3;  // of this rank's heads
  torch::Tensor input = group_ ? tp::enter_split_region(x, group_) : x;
  std::vector<torch::Tensor> qkv = c_attn_->forward(input).split(width, -1);  // 3 x (B, T, width)
  // (B, heads, T, head_dim)
  torch::Tensor mixed = runner::compat::causal_self_attention(
      split_heads(qkv[0]), split_heads(qkv[1]), split_heads(qkv[2]), dropout_, is_training());
  mixed = mixed.transpose(1, 2).reshape({x.size(0), x.size(1), width});  // (B, T, width)
  if (!group_) return resid_dropout_->forward(c_proj_->forward(mixed));
  torch::Tensor projected =
      tp::leave_split_region(torch::nn::functional::linear(mixed, c_proj_->weight), group_);
  return resid_dropout_->forward(projected + c_proj_->bias);  // (B, T, hidden)
}

std::vector<torch::Tensor> CausalSelfAttention::split(std::shared_ptr<runner::Communicator> group) {
  namespace tp = runner::tensor_parallel;
  torch::NoGradGuard no_grad;
  const int64_t hidden = c_proj_->weight.size(0);
  std::vector<torch::Tensor> weights, biases;  // this rank's rows of q, then k, then v
  for (const auto& w : c_attn_->weight.split(hidden, 0))
    weights.push_back(tp::part_of(w, 0, *group));
  for (const auto& b : c_attn_->bias.split(hidden, 0)) biases.push_back(tp::part_of(b, 0, *group));
  c_attn_->weight.set_data(torch::cat(weights));
  c_attn_->bias.set_data(torch::cat(biases));
  c_proj_->weight.set_data(tp::part_of(c_proj_->weight, 1, *group));
  heads_ /= group->world_size();
  group_ = std::move(group);
  return {c_attn_->weight, c_attn_->bias, c_proj_->weight};
}

}  // namespace gpt2
