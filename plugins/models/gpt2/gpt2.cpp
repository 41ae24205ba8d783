// Gpt2: its modules and layers, forward, the shifted loss, registration.
#include "gpt2.hpp"

#include <memory>
#include <runner/errors.hpp>
#include <string>

#include "activation.hpp"
#include "block.hpp"
#include "ends.hpp"
#include "init.hpp"
#include "memory.hpp"
#include "next_token_loss.hpp"

namespace gpt2 {
namespace {

torch::nn::Embedding normal_embedding(int64_t count, int64_t hidden) {
  torch::nn::Embedding embedding(count, hidden);
  torch::NoGradGuard no_grad;
  embedding->weight.normal_(0.0, kInitStd);
  return embedding;
}

torch::nn::ModuleList make_blocks(const Gpt2Options& options, int64_t tokens,
                                  const std::shared_ptr<const runner::Op>& activation) {
  BlockSizes sizes;
  sizes.hidden = options.shape.hidden;
  sizes.heads = options.shape.heads;
  sizes.dropout = options.dropout;
  sizes.projection_std = residual_projection_std(options.shape.layers);
  sizes.forward_flops = block_forward_flops(options.shape, tokens);
  torch::nn::ModuleList blocks;
  for (int64_t i = 0; i < options.shape.layers; ++i)
    blocks->push_back(std::make_shared<Block>(sizes, activation));
  return blocks;
}

}  // namespace

Gpt2::Gpt2(const Gpt2Options& options, const runner::ModelContext& context)
    : shape_(options.shape) {
  check_options(options, context.data);
  tokens_per_sample_ = context.data.sample_shape[0];
  std::shared_ptr<const runner::Op> activation =
      model_support::activation_op(options.activation, context);
  wte_ = register_module("wte", normal_embedding(shape_.vocab_size, shape_.hidden));
  wpe_ = register_module("wpe", normal_embedding(shape_.seq_len, shape_.hidden));
  drop_ = register_module("drop", torch::nn::Dropout(options.dropout));
  h_ = register_module("h", make_blocks(options, tokens_per_sample_, activation));
  ln_f_ =
      register_module("ln_f", torch::nn::LayerNorm(torch::nn::LayerNormOptions({shape_.hidden})));
  layers_.push_back(std::make_shared<Embedding>(wte_, wpe_, drop_));
  for (const auto& block : *h_) layers_.push_back(std::dynamic_pointer_cast<Block>(block));
  layers_.push_back(
      std::make_shared<Head>(ln_f_, wte_, head_forward_flops(shape_, tokens_per_sample_)));
}

torch::Tensor Gpt2::embed(const torch::Tensor& tokens) { return layers_.front()->forward(tokens); }

torch::Tensor Gpt2::head(const torch::Tensor& x) { return layers_.back()->forward(x); }

torch::Tensor Gpt2::forward(const torch::Tensor& tokens) {
  torch::Tensor x = tokens;
  for (const auto& layer : layers_) x = layer->forward(x);
  return x;  // (B, T, vocab_size)
}

torch::Tensor Gpt2::loss(const torch::Tensor& logits, const torch::Tensor& targets) {
  return next_token_cross_entropy(logits, targets);
}

double Gpt2::forward_flops_per_sample() const {
  return gpt2::forward_flops_per_sample(parameter_count(), tokens_per_sample_);
}

void add_gpt2_model(runner::PluginBuilder& plugin) {
  plugin.add_model(
      "gpt2", "1.0.0", "GPT-2 language model, presets tiny to xl; activation by key", gpt2_schema(),
      [](const runner::Options& options, const runner::ModelContext& context) {
        return std::make_shared<Gpt2>(Gpt2Options::from(options), context);
      },
      [](const runner::Options& options, const runner::ModelContext& context) {
        const Gpt2Options parsed = Gpt2Options::from(options);
        runner::ModelEstimate sizes = estimate(parsed, context.data);
        const int64_t tokens = context.data.sample_shape[0];
        sizes.layers = layer_estimates(parsed, tokens, context.precision);
        sizes.loss_bytes = loss_bytes(parsed.shape, tokens);
        return sizes;
      });
}

}  // namespace gpt2
