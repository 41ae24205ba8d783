// How a model splits over a tensor-parallel group, registered beside the model and apart from
// it (PluginBuilder::add_tensor_parallel), as torchtitan keeps a parallelize file beside each
// model: a model author who does not split tensors never meets any of this. The building
// blocks of a split forward are in runner/tensor_parallel.hpp.
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runner/communicator.hpp"
#include "runner/model.hpp"
#include "runner/options.hpp"

namespace runner {

// Of one layer's estimate (LayerEstimate), what each rank of a group of t ranks holds 1/t of;
// the rest every rank holds whole.
struct LayerSplit {
  int64_t parameters = 0;
  double held_bytes = 0;  // per sample, as LayerEstimate::held_bytes
};

// What the split divides, worked out from the options without building the model.
struct SplitEstimate {
  std::vector<LayerSplit> layers;  // one per ModelEstimate::layers, in order
  // Sizes a tensor-parallel degree must divide, by their keys ({"heads", 12}).
  std::vector<std::pair<std::string, int64_t>> divisors;
};

// Keeps this rank's part of each matrix the model splits over `group`, cut from the weights it
// was built with, so the split model computes what the whole one does; forward and backward
// then meet the group's other ranks in collectives. Returns the parameters it split; the
// others stay whole, and their gradients are the same on every rank of the group. Every rank
// of the group calls it, with the same weights, on a model the registered factory built.
using TensorSplitter =
    std::function<std::vector<torch::Tensor>(Model& model, std::shared_ptr<Communicator> group)>;
using SplitEstimator = std::function<SplitEstimate(const Options&, const ModelContext&)>;

struct TensorParallelism {
  TensorSplitter split;
  SplitEstimator estimate;  // optional: without it, the run plan cannot size a split model
};

}  // namespace runner
