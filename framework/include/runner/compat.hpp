// The LibTorch API differences between 1.13 (Debian's CPU build) and 2.x (the CUDA builds), in
// one place, so that plugins call one function whichever LibTorch they are built against.
#pragma once

#include <torch/torch.h>
#include <torch/version.h>

#include <cmath>
#include <limits>

namespace runner::compat {

// Scaled dot-product attention in which position t attends to positions 0..t only:
// softmax(q k^T / sqrt(head_dim), masked causally) v, with dropout on the attention weights
// while `training`. q, k, v: (B, heads, T, head_dim) -> (B, heads, T, head_dim).
inline torch::Tensor causal_self_attention(const torch::Tensor& q, const torch::Tensor& k,
                                           const torch::Tensor& v, double dropout_p,
                                           bool training) {
#if TORCH_VERSION_MAJOR >= 2
  // Fused kernels (flash, memory-efficient) where the device has them.
  return at::scaled_dot_product_attention(q, k, v, /*attn_mask=*/{}, training ? dropout_p : 0.0,
                                          /*is_causal=*/true);
#else
  const int64_t steps = q.size(-2);
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
  torch::Tensor scores = torch::matmul(q, k.transpose(-2, -1)) * scale;  // (B, heads, T, T)
  torch::Tensor future =  // (T, T): true above the diagonal, where a key comes after its query
      torch::ones({steps, steps}, q.options().dtype(torch::kBool)).triu(1);
  scores = scores.masked_fill(future, -std::numeric_limits<double>::infinity());
  torch::Tensor weights = torch::dropout(torch::softmax(scores, -1), dropout_p, training);
  return torch::matmul(weights, v);  // (B, heads, T, head_dim)
#endif
}

}  // namespace runner::compat
