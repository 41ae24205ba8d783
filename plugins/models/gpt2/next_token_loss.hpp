// The next-token cross-entropy of a language model's logits, with a backward of its own: the
// gradient comes from the log-softmax kept from forward in two passes, where autograd's chain
// (a slice's copy, log-softmax, negative log-likelihood) makes about twice as many over (B, T, V).
#pragma once

#include <torch/torch.h>

namespace gpt2 {

// logits (B, T, V) of any floating type, tokens (B, T) int64 -> the mean over the B * (T - 1)
// positions 0..T-2 of -log softmax(logits[b, t])[tokens[b, t + 1]], a float scalar (double
// for double logits). Its gradient has the logits' type; position T - 1's is zero.
torch::Tensor next_token_cross_entropy(const torch::Tensor& logits, const torch::Tensor& tokens);

}  // namespace gpt2
