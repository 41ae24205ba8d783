// A dataset: loads its splits once, then hands out batches for lists of indices.
#pragma once

#include <torch/torch.h>

#include <string>
#include <vector>

namespace runner {

enum class Split { train, test };

inline const char* split_name(Split split) { return split == Split::train ? "train" : "test"; }

struct Batch {
  torch::Tensor inputs;   // (N, ...sample_shape)
  torch::Tensor targets;  // (N) class ids, int64
};

struct DatasetInfo {
  std::vector<int64_t> sample_shape;  // e.g. {1, 28, 28}
  int64_t num_classes = 0;
  std::vector<std::string> class_names;  // num_classes names, or empty
};

struct DatasetContext {
  int64_t seed = 0;
};

class Dataset {
 public:
  virtual ~Dataset() = default;
  virtual DatasetInfo info() const = 0;
  virtual int64_t size(Split split) const = 0;
  // indices: (N) int64 on the CPU, each in [0, size(split)).
  virtual Batch get_batch(Split split, const torch::Tensor& indices) const = 0;
};

}  // namespace runner
