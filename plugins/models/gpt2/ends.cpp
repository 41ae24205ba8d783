// The embedding layer's forward (tokens plus positions, dropout) and the tied LM head's.
#include "ends.hpp"

#include <runner/errors.hpp>

#include <string>

namespace gpt2 {

Embedding::Embedding(torch::nn::Embedding wte, torch::nn::Embedding wpe, torch::nn::Dropout drop)
    : wte_(register_module("wte", wte)),
      wpe_(register_module("wpe", wpe)),
      drop_(register_module("drop", drop)) {}

torch::Tensor Embedding::forward(const torch::Tensor& tokens) {
  const int64_t steps = tokens.size(1);
  const int64_t seq_len = wpe_->weight.size(0);
  RUNNER_CHECK(steps <= seq_len, "gpt2 got " + std::to_string(steps) +
                                     " tokens per sequence, more than its seq_len " +
                                     std::to_string(seq_len));
  torch::Tensor positions = torch::arange(steps, tokens.options());         // (T)
  return drop_->forward(wte_->forward(tokens) + wpe_->forward(positions));  // (B, T, hidden)
}

Head::Head(torch::nn::LayerNorm ln_f, torch::nn::Embedding wte, double forward_flops)
    : ln_f_(register_module("ln_f", ln_f)), wte_(std::move(wte)), forward_flops_(forward_flops) {}

torch::Tensor Head::forward(const torch::Tensor& x) {
  return torch::nn::functional::linear(ln_f_->forward(x), wte_->weight);  // (B, T, vocab_size)
}

}  // namespace gpt2
