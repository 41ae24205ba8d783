#include "block.hpp"

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
  torch::Tensor wide = (*activation_)(c_fc_->forward(x));  // (B, T, 4 * hidden)
  return dropout_->forward(c_proj_->forward(wide));
}

Block::Block(const BlockSizes& sizes, std::shared_ptr<const runner::Op> activation) {
  ln_1_ = register_module("ln_1", layer_norm(sizes.hidden));
  attn_ = register_module("attn", std::make_shared<CausalSelfAttention>(sizes));
  ln_2_ = register_module("ln_2", layer_norm(sizes.hidden));
  mlp_ = register_module("mlp", std::make_shared<Mlp>(sizes, std::move(activation)));
}

torch::Tensor Block::forward(const torch::Tensor& x) {
  torch::Tensor attended = x + attn_->forward(ln_1_->forward(x));
  return attended + mlp_->forward(ln_2_->forward(attended));
}

}  // namespace gpt2
