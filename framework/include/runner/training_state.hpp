// A strategy's training state as pieces of named whole tensors: a checkpoint written by one
// layout (its ranks, shards, stages, splits) is read back by another, each rank reading the
// parts of the whole tensors it holds, whichever ranks wrote them.
#pragma once

#include <torch/types.h>

#include <string>
#include <vector>

namespace runner {

// A piece of the whole tensor `name`: with dim = -1, `values` are the elements
// [start, start + values.numel()) of the whole flattened; otherwise the whole narrowed along
// `dim` from `start` for values.size(dim). The host saves `values` and, to load, copies the
// saved values into them in place (converting their type where it differs).
struct StatePiece {
  std::string name;  // "model/<parameter>", "optimizer/<statistic>/<parameter>", ...
  std::vector<int64_t> whole_shape;
  int64_t dim = -1;
  int64_t start = 0;
  torch::Tensor values;
  // false: another rank saves the same values (a replica's); this rank only loads them.
  bool saved = true;
};

}  // namespace runner
