// cifar10's keys and dataset: splits loaded, cut to size, scaled per channel into float batches.
#include "cifar10_dataset.hpp"

#include <cmath>
#include <runner/errors.hpp>
#include <runner/option_fields.hpp>
#include <string>
#include <vector>

#include "cifar10_download.hpp"

namespace cifar10 {
namespace {

// Model input = (pixel byte - offset) / scale, per channel.
struct PixelScale {
  torch::Tensor offset;  // (1, 3, 1, 1) float32
  torch::Tensor scale;   // (1, 3, 1, 1) float32
};

torch::Tensor per_channel(const std::vector<double>& values) {
  return torch::tensor(values, torch::kFloat64).view({1, kChannels, 1, 1}).to(torch::kFloat32);
}

// x/255 for every channel.
PixelScale unit_scale() {
  return {per_channel(std::vector<double>(kChannels, 0.0)),
          per_channel(std::vector<double>(kChannels, 255.0))};
}

// (x/255 - mean)/std per channel, with the mean and std of that channel's bytes in `images`,
// taken from their histogram: exact, and no float copy of the whole set.
PixelScale standardizing_scale(const torch::Tensor& images) {
  torch::Tensor values = torch::arange(256, torch::kFloat64);  // (256)
  std::vector<double> means;
  std::vector<double> stds;
  for (int64_t channel = 0; channel < kChannels; ++channel) {
    torch::Tensor plane = images.select(1, channel).flatten();                   // (N * 1024)
    torch::Tensor counts = torch::bincount(plane, {}, 256).to(torch::kFloat64);  // (256)
    auto pixels = static_cast<double>(plane.numel());
    double mean = (counts * values).sum().item<double>() / pixels;
    double variance = (counts * (values - mean).square()).sum().item<double>() / pixels;
    means.push_back(mean);
    // A constant channel has std 0; its centred pixels are 0 whatever the scale.
    stds.push_back(variance > 0 ? std::sqrt(variance) : 1.0);
  }
  return {per_channel(means), per_channel(stds)};
}

RawSplit first_samples(const RawSplit& split, int64_t count, const std::string& key,
                       const std::filesystem::path& folder) {
  int64_t available = split.labels.size(0);
  if (count == 0) return split;
  if (count > available)
    throw runner::ConfigError(
        "[dataset] " + key + " = " + std::to_string(count) + " is more than the " +
            std::to_string(available) + " samples of that split in " + folder.string(),
        "set " + key + " to at most " + std::to_string(available) + ", or 0 for all");
  return {split.images.narrow(0, 0, count).clone(), split.labels.narrow(0, 0, count).clone()};
}

}  // namespace

namespace {

const runner::OptionFields<Cifar10Options>& fields() {
  static const auto fields = [] {
    runner::OptionFields<Cifar10Options> f;
    f.custom({"data_dir", runner::KeyType::string, std::nullopt,
              "folder of data_batch_1.bin .. data_batch_5.bin and test_batch.bin, or of the "
              "cifar-10-batches-bin folder that holds them"},
             [](Cifar10Options& out, const runner::Options& options, const std::string& key) {
               out.data_dir = options.get_string(key);
             });
    f.integer("train_size", &Cifar10Options::train_size,
              "use only the first N training samples (0: all)", 0);
    f.integer("test_size", &Cifar10Options::test_size, "use only the first N test samples (0: all)",
              0);
    f.flag("normalize", &Cifar10Options::normalize,
           "true: (x/255 - mean)/std per channel, with the mean and std of the whole training "
           "set; false: x/255");
    add_download_keys(f);
    return f;
  }();
  return fields;
}

}  // namespace

Cifar10Options Cifar10Options::from(const runner::Options& options) {
  return fields().read(options);
}

runner::Schema cifar10_schema() { return fields().schema(); }

Cifar10Dataset::Cifar10Dataset(const Cifar10Options& options) {
  if (options.download) download_cifar_files(options.data_dir, options.source);
  CifarFiles files = find_cifar_files(options.data_dir);
  RawSplit train = load_split(files.train);
  RawSplit test = load_split(files.test);
  PixelScale pixels = options.normalize ? standardizing_scale(train.images) : unit_scale();
  std::filesystem::path folder = files.test.front().parent_path();
  train_ = first_samples(train, options.train_size, "train_size", folder);
  test_ = first_samples(test, options.test_size, "test_size", folder);
  pixel_offset_ = pixels.offset;
  pixel_scale_ = pixels.scale;
  info_.sample_shape = {kChannels, kSide, kSide};
  info_.num_classes = kNumClasses;
  info_.class_names = {"airplane", "automobile", "bird",  "cat",  "deer",
                       "dog",      "frog",       "horse", "ship", "truck"};
}

int64_t Cifar10Dataset::size(runner::Split split) const { return split_data(split).labels.size(0); }

runner::Batch Cifar10Dataset::get_batch(runner::Split split, const torch::Tensor& indices) const {
  const RawSplit& data = split_data(split);
  // (B, 3, 32, 32) uint8 -> float32
  torch::Tensor images = data.images.index_select(0, indices).to(torch::kFloat32);
  return {images.sub_(pixel_offset_).div_(pixel_scale_), data.labels.index_select(0, indices)};
}

const RawSplit& Cifar10Dataset::split_data(runner::Split split) const {
  return split == runner::Split::train ? train_ : test_;
}

void add_cifar10_dataset(runner::PluginBuilder& plugin) {
  plugin.add_dataset(
      "cifar10", "1.0.0", "CIFAR-10 binary version (60k 3x32x32 images, 10 classes), in memory",
      cifar10_schema(), [](const runner::Options& options, const runner::DatasetContext&) {
        return std::make_shared<Cifar10Dataset>(Cifar10Options::from(options));
      });
}

}  // namespace cifar10
