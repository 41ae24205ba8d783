// Activation checkpointing of one layer (LibTorch has no C++ torch.utils.checkpoint): the
// layer's forward runs without recording a graph, keeping only its input; backward runs it
// again with the graph on, under the random-number and autocast state the first run had (so
// dropout draws the same masks), and differentiates that. The recomputed graph is freed as
// soon as it has given the input's and the parameters' gradients.
#pragma once

#include <runner/layer.hpp>

#include <memory>

namespace runner::strategies {

// layer->forward(x), with x's activations inside the layer recomputed in backward. The
// layer's gradients reach its parameters() and its tied_parameters() through the enclosing
// backward, so tensor hooks and gradient accumulation see them as without checkpointing.
torch::Tensor checkpointed_forward(const std::shared_ptr<Layer>& layer, const torch::Tensor& x);

}  // namespace runner::strategies
