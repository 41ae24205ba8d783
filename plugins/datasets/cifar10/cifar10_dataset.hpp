// Dataset "cifar10": the CIFAR-10 binary version, each split kept in memory as bytes (184 MB
// for 60k images) and converted to float per batch.
#pragma once

#include <runner/dataset.hpp>
#include <runner/options.hpp>
#include <runner/plugin.hpp>

#include <filesystem>

#include "cifar10_download_options.hpp"
#include "cifar10_files.hpp"

namespace cifar10 {

struct Cifar10Options {
  std::filesystem::path data_dir;
  int64_t train_size = 0;  // first N training samples; 0: all
  int64_t test_size = 0;   // first N test samples; 0: all
  bool normalize = true;
  bool download = false;  // fetch and extract the official archive when data_dir lacks the files
  DownloadSource source;

  // Throws a runner::ConfigError when mirrors or md5 is malformed.
  static Cifar10Options from(const runner::Options& options);
};

runner::Schema cifar10_schema();

class Cifar10Dataset : public runner::Dataset {
 public:
  explicit Cifar10Dataset(const Cifar10Options& options);

  runner::DatasetInfo info() const override { return info_; }
  int64_t size(runner::Split split) const override;
  runner::Batch get_batch(runner::Split split, const torch::Tensor& indices) const override;

 private:
  const RawSplit& split_data(runner::Split split) const;

  RawSplit train_;
  RawSplit test_;
  torch::Tensor pixel_offset_;  // (1, 3, 1, 1) float32: model input = (byte - offset) / scale
  torch::Tensor pixel_scale_;   // (1, 3, 1, 1) float32
  runner::DatasetInfo info_;
};

// Registers the dataset "cifar10".
void add_cifar10_dataset(runner::PluginBuilder& plugin);

}  // namespace cifar10
