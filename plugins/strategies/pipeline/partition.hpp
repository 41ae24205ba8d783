// Where a pipeline cuts a model's layers: k contiguous ranges, each of at least one layer.
#pragma once

#include <cstddef>
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

}  // namespace runner::strategies
