// A dataset: loads its splits once, then hands out batches for lists of indices.
#pragma once

#include <torch/types.h>

#include <string>
#include <vector>

namespace runner {

enum class Split { train, test };

inline const char* split_name(Split split) { return split == Split::train ? "train" : "test"; }

// What the targets mean, and so which metrics the engine reports.
enum class Task {
  classification,     // targets (N) class ids; accuracy and per-class accuracy
  language_modeling,  // inputs (N, T) token ids, targets (N, T) the same tokens: the model
                      // predicts token t+1 from tokens up to t; token loss and perplexity
};

inline const char* task_name(Task task) {
  return task == Task::classification ? "classification" : "language_modeling";
}

struct Batch {
  torch::Tensor inputs;   // (N, ...sample_shape)
  torch::Tensor targets;  // classification: (N) class ids; language modeling: (N, T); int64
};

struct DatasetInfo {
  std::vector<int64_t> sample_shape;     // e.g. {1, 28, 28}, or {T} for token sequences
  int64_t num_classes = 0;               // classes, or the vocabulary size for language modeling
  std::vector<std::string> class_names;  // num_classes names, or empty
  Task task = Task::classification;
};

struct DatasetContext {
  int64_t seed = 0;
};

class Dataset {
 public:
  virtual ~Dataset() = default;
  virtual DatasetInfo info() const = 0;
  virtual int64_t size(Split split) const = 0;
  // indices: (N) int64 on the CPU, each in [0, size(split)). Called from several loader
  // threads at once (train.num_workers), so it must not change shared state.
  virtual Batch get_batch(Split split, const torch::Tensor& indices) const = 0;
};

}  // namespace runner
