// Dataset "mnist": an MNIST-format set (MNIST, Fashion-MNIST, ...) from its four IDX files,
// each split kept in memory as bytes (47 MB for 70k images) and converted per batch.
#pragma once

#include <runner/dataset.hpp>
#include <runner/options.hpp>
#include <runner/plugin.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "mnist_download_options.hpp"

namespace mnist {

struct MnistOptions {
  std::filesystem::path data_dir;
  int64_t train_size = 0;  // first N training samples; 0: all
  int64_t test_size = 0;   // first N test samples; 0: all
  bool normalize = true;
  std::vector<std::string> class_names;  // empty: "0".."9"
  bool download = false;                 // fetch the files data_dir lacks from source
  DownloadSource source;

  // Throws a runner::ConfigError when class_names does not name every class, or mirrors or
  // md5 is malformed.
  static MnistOptions from(const runner::Options& options);
};

runner::Schema mnist_schema();

class MnistDataset : public runner::Dataset {
 public:
  explicit MnistDataset(const MnistOptions& options);

  runner::DatasetInfo info() const override { return info_; }
  int64_t size(runner::Split split) const override;
  runner::Batch get_batch(runner::Split split, const torch::Tensor& indices) const override;

 private:
  struct SplitTensors {
    torch::Tensor images;  // (N, rows, cols) uint8
    torch::Tensor labels;  // (N) int64
  };
  const SplitTensors& tensors(runner::Split split) const;

  SplitTensors train_;
  SplitTensors test_;
  double pixel_offset_ = 0;  // model input = (pixel byte - offset) / scale
  double pixel_scale_ = 255;
  runner::DatasetInfo info_;
};

// Registers the dataset "mnist".
void add_mnist_dataset(runner::PluginBuilder& plugin);

}  // namespace mnist
