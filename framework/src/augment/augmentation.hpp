// Batched data augmentation: the transforms of [[dataset.augment]], run as tensor ops on whole
// batches on the training device, with random parameters drawn from a generator seeded by the
// run's seed, the epoch and the batch, so a batch comes out the same in any loader thread.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <vector>

#include "config/experiment.hpp"
#include "runner/dataset.hpp"

namespace runner::augment {

class Transform {
 public:
  virtual ~Transform() = default;
  // images: (N, C, H, W) floating point, on any device. Per-sample parameters are drawn on the
  // CPU from `generator` and then moved to the images' device.
  virtual torch::Tensor apply(const torch::Tensor& images, at::Generator& generator) const = 0;
  // Random transforms apply to training batches only; deterministic ones (normalize) to test
  // batches too, so that both splits reach the model on the same scale.
  virtual bool random() const = 0;
  // The shape of one transformed sample (C, H, W), given the shape of one input sample.
  virtual std::vector<int64_t> output_shape(const std::vector<int64_t>& sample_shape) const {
    return sample_shape;
  }
};

// Throws ConfigError naming dataset.augment[position] and the key when a value is out of what
// the schema can express (e.g. a scale range whose minimum exceeds its maximum).
std::unique_ptr<Transform> make_transform(const config::AugmentConfig& config, size_t position);

class Augmentation {
 public:
  Augmentation() = default;
  explicit Augmentation(const std::vector<config::AugmentConfig>& configs);

  bool empty() const { return transforms_.empty(); }
  // The sample shape after every transform; throws ConfigError when the samples are not
  // images (C, H, W) or a transform cannot apply to them (a crop larger than the padded image).
  std::vector<int64_t> output_shape(const std::vector<int64_t>& sample_shape) const;
  // images: (N, C, H, W). On the training split every transform applies; on the test split
  // only the deterministic ones. The same (seed, epoch, batch) gives the same output.
  torch::Tensor apply(const torch::Tensor& images, Split split, int64_t seed, int64_t epoch,
                      int64_t batch) const;

 private:
  std::vector<std::unique_ptr<Transform>> transforms_;
};

}  // namespace runner::augment
