// gpt2's tensor parallelism, beside the model and apart from it: Megatron-LM's split of each
// block, attention by heads and the MLP by its inner width. The embeddings, the LayerNorms,
// the head and the loss stay whole on every rank: the logits then need no gather before the
// loss and the tied weight no vocabulary split, at the cost of V * hidden parameters and the
// logits on every rank.
#pragma once

#include <runner/plugin.hpp>
#include <runner/tensor_split.hpp>

#include <memory>
#include <vector>

#include "gpt2.hpp"

namespace gpt2 {

// Keeps this rank's part of each block's matrices; returns the parameters split. Throws a
// ConfigError naming heads when the group's size does not divide them.
std::vector<torch::Tensor> parallelize(Gpt2& model, std::shared_ptr<runner::Communicator> group);

// What the split divides, from the options: each block's part, and the sizes a degree must
// divide (heads, hidden).
runner::SplitEstimate split_estimate(const Gpt2Options& options,
                                     const runner::ModelContext& context);

// Registers both for the model "gpt2" (add_gpt2_model first).
void add_gpt2_tensor_parallel(runner::PluginBuilder& plugin);

}  // namespace gpt2
