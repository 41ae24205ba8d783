// Where a pipeline cuts a model's layers: k contiguous ranges, each of at least one layer.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace runner::strategies {

struct LayerRange {
  size_t begin = 0, end = 0;  // [begin, end) of the model's layers
  bool operator==(const LayerRange& o) const { return begin == o.begin && end == o.end; }
};

// The cut whose heaviest stage is lightest (ties: the earliest such cut), for `weights` such
// as each layer's parameter count. Throws std::invalid_argument when there are fewer layers
// than stages.
std::vector<LayerRange> balance_by_weight(const std::vector<double>& weights, int stages);

// As many layers on each stage as can be, the first stages taking one more when they do not
// divide.
std::vector<LayerRange> balance_by_count(size_t layers, int stages);

// Each layer's parameters and forward FLOPs per sample (0: the layer does not say).
struct LayerWeights {
  std::vector<double> parameters, flops;
};

// The cut by `balance`: "flops" balances the layers' compute (their parameters when no layer
// says its FLOPs), "parameters" their weights, "layers" their count. Throws
// std::invalid_argument when there are fewer layers than stages.
std::vector<LayerRange> cut_layers(const std::string& balance, const LayerWeights& layers,
                                   int stages);

// Whether cut_layers with "flops" balances compute: some layer says its FLOPs.
bool says_flops(const LayerWeights& layers);

}  // namespace runner::strategies
