// Model "gpt2": GPT-2 (Radford et al., 2019) for language modeling. Token and position
// embeddings, pre-LayerNorm blocks, a final LayerNorm and an LM head tied to the token
// embedding. The MLP's activation is an op looked up by name.
#pragma once

#include <runner/model.hpp>
#include <runner/plugin.hpp>

#include <torch/torch.h>

#include "gpt2_options.hpp"

namespace gpt2 {

class Gpt2 : public runner::Model {
 public:
  // Throws what check_options throws, a runner::ConfigError when the activation op takes more
  // than one input; the op library throws one when it has no such op.
  Gpt2(const Gpt2Options& options, const runner::ModelContext& context);

  // (B, T) int64 token ids, T <= seq_len -> (B, T, vocab_size) logits
  torch::Tensor forward(const torch::Tensor& tokens) override;

  // The next-token cross-entropy: logits of positions 0..T-2 against the tokens at 1..T-1,
  // mean over those B * (T - 1) predictions. targets: (B, T), the input tokens.
  torch::Tensor loss(const torch::Tensor& logits, const torch::Tensor& targets) override;

  double forward_flops_per_sample() const override;

  // The embedding (gpt2::Embedding), each block (gpt2::Block), the head (gpt2::Head):
  // forward is their fold. The head's weight is the embedding's (tied_parameters()).
  std::vector<std::shared_ptr<runner::Layer>> layers() override { return layers_; }

  torch::Tensor embed(const torch::Tensor& tokens);  // (B, T) -> (B, T, hidden)
  torch::nn::ModuleList blocks() const { return h_; }
  const Shape& shape() const { return shape_; }
  torch::Tensor head(const torch::Tensor& x);  // (B, T, hidden) -> (B, T, vocab_size)

 private:
  Shape shape_;
  int64_t tokens_per_sample_ = 0;      // the dataset's T
  torch::nn::Embedding wte_{nullptr};  // token embedding, also the LM head's weight
  torch::nn::Embedding wpe_{nullptr};  // position embedding
  torch::nn::Dropout drop_{nullptr};
  torch::nn::ModuleList h_{nullptr};
  torch::nn::LayerNorm ln_f_{nullptr};
  std::vector<std::shared_ptr<runner::Layer>> layers_;  // sharing the modules above
};

// Registers the model "gpt2", with its estimator.
void add_gpt2_model(runner::PluginBuilder& plugin);

}  // namespace gpt2
