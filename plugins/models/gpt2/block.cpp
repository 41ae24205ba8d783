// The MLP and the block: their layers, forward, and their split for tensor parallelism.
#include "block.hpp"

#include <runner/tensor_parallel.hpp>

#include <utility>

#include "init.hpp"

namespace gpt2 {
namespace {

constexpr int64_t kMlpExpansion = 4;

torch::nn::LayerNorm layer_norm(int64_t hidden) {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({hidden}));
}

}  // namespace

Mlp::Mlp(const BlockSizes& sizes, std::shared_ptr<const runner::Op> activation)
    : activation_(std::move(activation)) {
  const int64_t wide = kMlpExpansion * sizes.hidden;
  c_fc_ = register_module("c_fc", normal_linear(sizes.hidden, wide, kInitStd));
  c_proj_ = register_module("c_proj", normal_linear(wide, sizes.hidden, sizes.projection_std));
  dropout_ = register_module("dropout", torch::nn::Dropout(sizes.dropout));
}

torch::Tensor Mlp::forward(const torch::Tensor& x) {
  namespace tp = runner::tensor_parallel;
  if (!group_) {
    torch::Tensor wide = (*activation_)(c_fc_->forward(x));  // (B, T, 4 * hidden)
    return dropout_->forward(c_proj_->forward(wide));
  }
  torch::Tensor wide = (*activation_)(c_fc_->forward(tp::enter_split_region(x, group_)));
  torch::Tensor projected =  // (B, T, 4 * hidden / t) -> (B, T, hidden)
      tp::leave_split_region(torch::nn::functional::linear(wide, c_proj_->weight), group_);
  return dropout_->forward(projected + c_proj_->bias);
}

std::vector<torch::Tensor> Mlp::split(std::shared_ptr<runner::Communicator> group) {
  namespace tp = runner::tensor_parallel;
  torch::NoGradGuard no_grad;
  c_fc_->weight.set_data(tp::part_of(c_fc_->weight, 0, *group));
  c_fc_->bias.set_data(tp::part_of(c_fc_->bias, 0, *group));
  c_proj_->weight.set_data(tp::part_of(c_proj_->weight, 1, *group));
  group_ = std::move(group);
  return {c_fc_->weight, c_fc_->bias, c_proj_->weight};
}

Block::Block(const BlockSizes& sizes, std::shared_ptr<const runner::Op> activation)
    : forward_flops_(sizes.forward_flops) {
  ln_1_ = register_module("ln_1", layer_norm(sizes.hidden));
  attn_ = register_module("attn", std::make_shared<CausalSelfAttention>(sizes));
  ln_2_ = register_module("ln_2", layer_norm(sizes.hidden));
  mlp_ = register_module("mlp", std::make_shared<Mlp>(sizes, std::move(activation)));
}

std::vector<torch::Tensor> Block::split(const std::shared_ptr<runner::Communicator>& group) {
  std::vector<torch::Tensor> split = attn_->split(group);
  for (const auto& p : mlp_->split(group)) split.push_back(p);
  return split;
}

torch::Tensor Block::forward(const torch::Tensor& x) {
  torch::Tensor attended = x + attn_->forward(ln_1_->forward(x));
  return attended + mlp_->forward(ln_2_->forward(attended));
}

}  // namespace gpt2
