// What gpt2's layers hold for backward, per sample, from its shape alone: the tensors autograd
// saves in this implementation's forward (listed in memory.cpp), so a plan can size a model
// too large to build here.
#pragma once

#include <runner/model.hpp>
#include <runner/tensor_split.hpp>
#include <vector>

#include "gpt2_options.hpp"

namespace gpt2 {

// The embedding, each block, the head; `tokens` per sample.
std::vector<runner::LayerEstimate> layer_estimates(const Gpt2Options& options, int64_t tokens,
                                                   runner::Precision precision);

// Of each of those layers, what a tensor-parallel split divides (gpt2_parallelize.hpp).
std::vector<runner::LayerSplit> layer_splits(const Gpt2Options& options, int64_t tokens,
                                             runner::Precision precision);

// The loss's log-probabilities and their copies, per sample.
double loss_bytes(const Shape& shape, int64_t tokens);

}  // namespace gpt2
