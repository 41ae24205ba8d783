// Model "gpt2": its keys, its presets (tiny, and the four sizes of the GPT-2 paper), and the sizes
// worked out from them without building the model (parameters, FLOPs) for `runner --dry-run`.
#pragma once

#include <runner/dataset.hpp>
#include <runner/model.hpp>
#include <runner/options.hpp>

#include <string>
#include <vector>

namespace gpt2 {

// The sizes that make one GPT-2.
struct Shape {
  int64_t hidden = 0;      // width of the residual stream
  int64_t heads = 0;       // attention heads; each sees hidden / heads of the width
  int64_t layers = 0;      // transformer blocks
  int64_t seq_len = 0;     // positions with an embedding: the longest sequence it takes
  int64_t vocab_size = 0;  // token embeddings, and logits per position
};

// The shape of a preset: "tiny", "small", "medium", "large" or "xl".
Shape preset_shape(const std::string& preset);
std::vector<std::string> preset_names();

struct Gpt2Options {
  Shape shape = preset_shape("tiny");
  double dropout = 0.0;
  std::string activation = "torch_gelu_tanh";  // an op name

  // The preset's shape, with each size key set to a value other than 0 in its place.
  static Gpt2Options from(const runner::Options& options);
};

runner::Schema gpt2_schema();

// Throws a runner::ConfigError when hidden does not divide by heads, or when the dataset is not
// one of token sequences that fit the shape's vocabulary and positions.
void check_options(const Gpt2Options& options, const runner::DatasetInfo& data);

// A trillion parameters: four terabytes of float32 weights alone, past any machine a run here
// trains on; a larger shape is refused before anything is built or planned.
inline constexpr double kMaxParameters = 1e12;

// 12 L h^2 + 13 L h + V h + S h + 2 h: each block has two LayerNorms (4 h), the qkv linear
// (3 h^2 + 3 h), the attention projection (h^2 + h) and the MLP (8 h^2 + 5 h); then the token
// and position embeddings and the final LayerNorm. The LM head is the token embedding.
int64_t parameter_count(const Shape& shape);

// 2 * parameters * tokens: a multiply-add per weight and token (attention scores not counted).
// The engine counts a training step as 3 forward passes, which gives the usual
// 6 * parameters * tokens of training without recomputation.
double forward_flops_per_sample(int64_t parameters, int64_t tokens_per_sample);

// The FLOPs of one sample's forward through a block: its matmuls (24 T h^2) and the
// attention's products q k^T and the weighted sum of v over every position (4 T^2 h); and
// through the head, its logits against the token embedding (2 T h V). What a pipeline cut
// balances.
double block_forward_flops(const Shape& shape, int64_t tokens);
double head_forward_flops(const Shape& shape, int64_t tokens);

// Parameters and FLOPs of the model `options` build for `data`, without allocating it. Throws
// what check_options throws.
runner::ModelEstimate estimate(const Gpt2Options& options, const runner::DatasetInfo& data);

}  // namespace gpt2
