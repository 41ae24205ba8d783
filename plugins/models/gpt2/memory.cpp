// The bytes a block holds per token by precision and dropout, and gpt2's layer estimates.
#include "memory.hpp"

#include <runner/compat.hpp>

#include <algorithm>

namespace gpt2 {
namespace {

// Bytes per token a block holds, with the width C, heads H and sequence T, as this
// implementation's forward leaves them for backward (LibTorch 1.13's CPU autocast), split by
// whether tensor parallelism divides them among its ranks (the heads' and the MLP's inner
// tensors) or every rank holds them whole (the residual stream):
// - fp32: ln_1's output (C, kept by c_attn), q, k and v made contiguous for the batched
//   matmuls (3C), the softmax's output (H T), the heads' output made contiguous for c_proj
//   (C), the residual sum (C, kept by ln_2), ln_2's output (C), c_fc's output (4C, kept by the
//   activation), the activation's output (4C, kept by c_proj), the block's output (C): 16C + HT
//   floats, of which 12C + HT split.
// - bf16: the linears keep bf16 copies of their inputs and give bf16 outputs, the attention
//   runs in bf16, and the residual sums are fp32: 2C (ln_1's copy) + 6C (q, k, v) + 2HT
//   (softmax) + 2C (heads) + 4C (sum) + 2C (ln_2's copy) + 8C (c_fc) + 8C (activation) + 4C
//   (output) = 36C + 2HT bytes, of which 24C + 2HT split.
// Dropout keeps its mask at each place: the attention weights (its output too: 2 HT, split)
// and the two residual branches (C each, whole), in the tensors' own type.
// LibTorch 2.x's fused attention (compat::causal_self_attention, without dropout: with it the
// CPU takes the unfused path) keeps no softmax: in its place 2 fp32 values per head and token,
// the rows' log-sum-exp among them (measured: 8H bytes per token in fp32 and in bf16, split).
// In bf16 it attends in float on the CPU: it keeps float copies of q, k and v (12C) in place
// of the bf16 ones (6C), and its float output (4C) beside c_proj's bf16 copy (the heads' 2C):
// 46C + 8H bytes, of which 34C + 8H split. The estimate knows no device: on a GPU, where bf16
// attends in bf16, a block holds 10C less than this.
struct BlockBytes {
  double held = 0;
  double split = 0;
};

BlockBytes block_bytes(const Shape& s, int64_t tokens, bool dropout, bool bf16) {
  const double c = static_cast<double>(s.hidden);
  const double ht = static_cast<double>(s.heads) * static_cast<double>(tokens);
#if RUNNER_TORCH_AT_LEAST(2, 0)
  if (!dropout) {
    const double row_statistics = 8 * static_cast<double>(s.heads);
    if (bf16) return {46 * c + row_statistics, 34 * c + row_statistics};
    return {4 * 16 * c + row_statistics, 4 * 12 * c + row_statistics};
  }
#endif
  if (bf16)
    return {36 * c + 2 * ht + (dropout ? 2 * (2 * ht + 2 * c) : 0),
            24 * c + 2 * ht + (dropout ? 4 * ht : 0)};
  return {4 * (16 * c + ht + (dropout ? 2 * ht + 2 * c : 0)),
          4 * (12 * c + ht + (dropout ? 2 * ht : 0))};
}

runner::LayerEstimate layer(int64_t parameters, double held, double output, double flops) {
  runner::LayerEstimate estimate;
  estimate.parameters = parameters;
  estimate.held_bytes = held;
  estimate.output_bytes = output;
  estimate.forward_flops = flops;
  return estimate;
}

}  // namespace

std::vector<runner::LayerEstimate> layer_estimates(const Gpt2Options& options, int64_t tokens,
                                                   runner::Precision precision) {
  const Shape& s = options.shape;
  const double t = static_cast<double>(tokens);
  const double c = static_cast<double>(s.hidden);
  const double v = static_cast<double>(s.vocab_size);
  const bool dropout = options.dropout > 0;
  const bool bf16 = precision != runner::Precision::fp32;  // fp16's tensors are as large
  const int64_t per_block = 12 * s.hidden * s.hidden + 13 * s.hidden;
  std::vector<runner::LayerEstimate> layers;
  // Embedding (fp32 under autocast too): the sum of both lookups, and dropout's mask.
  layers.push_back(layer(s.vocab_size * s.hidden + s.seq_len * s.hidden,
                         t * 4 * c * (dropout ? 2 : 1), t * 4 * c, 0));
  const BlockBytes bytes = block_bytes(s, tokens, dropout, bf16);
  for (int64_t i = 0; i < s.layers; ++i) {
    layers.push_back(layer(per_block, t * bytes.held, t * 4 * c, block_forward_flops(s, tokens)));
  }
  // Head: ln_f's output (C, or its bf16 copy, kept by the linear) and the logits (V).
  const double element = bf16 ? 2 : 4;
  runner::LayerEstimate head =
      layer(2 * s.hidden, t * element * (c + v), t * element * v, head_forward_flops(s, tokens));
  head.tied_parameters = s.vocab_size * s.hidden;  // the token embedding, layer 0's
  layers.push_back(head);
  return layers;
}

std::vector<runner::LayerSplit> layer_splits(const Gpt2Options& options, int64_t tokens,
                                             runner::Precision precision) {
  const Shape& s = options.shape;
  const bool bf16 = precision != runner::Precision::fp32;
  const BlockBytes bytes = block_bytes(s, tokens, options.dropout > 0, bf16);
  // All of a block but its LayerNorms and the two projections' biases; the ends whole.
  const runner::LayerSplit block{12 * s.hidden * s.hidden + 13 * s.hidden - 6 * s.hidden,
                                 static_cast<double>(tokens) * bytes.split};
  std::vector<runner::LayerSplit> splits(static_cast<size_t>(s.layers) + 2);
  std::fill(splits.begin() + 1, splits.end() - 1, block);
  return splits;
}

double loss_bytes(const Shape& shape, int64_t tokens) {
  // The log-softmax of every position, fp32 under autocast too (kept by the loss).
  return 4 * static_cast<double>(tokens) * static_cast<double>(shape.vocab_size);
}

}  // namespace gpt2
