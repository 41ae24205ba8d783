// mnist's keys and dataset: splits loaded or downloaded, checked, standardized into float batches.
#include "mnist_dataset.hpp"

#include <cmath>
#include <runner/errors.hpp>
#include <runner/option_fields.hpp>

#include "mnist_download.hpp"
#include "mnist_files.hpp"

namespace mnist {
namespace {

// Model input = (pixel byte - offset) / scale.
struct PixelScale {
  double offset = 0;
  double scale = 255;
};

// (x/255 - mean) / std with the mean and std of `images`' bytes, taken from their histogram:
// exact, and no float copy of the whole set.
PixelScale standardizing_scale(const torch::Tensor& images) {
  torch::Tensor counts = torch::bincount(images.flatten(), {}, 256).to(torch::kFloat64);  // (256)
  torch::Tensor values = torch::arange(256, torch::kFloat64);                             // (256)
  auto pixels = static_cast<double>(images.numel());
  double mean = (counts * values).sum().item<double>() / pixels;
  double variance = (counts * (values - mean).square()).sum().item<double>() / pixels;
  double std = std::sqrt(variance);
  // A constant set has std 0; its centred pixels are 0 whatever the scale.
  return {mean, std > 0 ? std : 1};
}

RawSplit first_samples(const RawSplit& split, int64_t count, const std::string& key,
                       const std::filesystem::path& images_file) {
  int64_t available = split.images.size(0);
  if (count == 0) return split;
  if (count > available)
    throw runner::ConfigError(
        "[dataset] " + key + " = " + std::to_string(count) + " is more than the " +
            std::to_string(available) + " samples of " + images_file.string(),
        "set " + key + " to at most " + std::to_string(available) + ", or 0 for all");
  return {split.images.narrow(0, 0, count).clone(), split.labels.narrow(0, 0, count).clone()};
}

void check_same_image_size(const RawSplit& train, const RawSplit& test, const MnistFiles& files) {
  auto size_text = [](const torch::Tensor& images) {
    return std::to_string(images.size(1)) + "x" + std::to_string(images.size(2));
  };
  if (train.images.sizes().slice(1) != test.images.sizes().slice(1))
    throw runner::DataError(files.test.images.string() + " holds " + size_text(test.images) +
                                " images but " + files.train.images.string() + " holds " +
                                size_text(train.images) + " images",
                            "the train and test files come from different sets");
}

std::vector<std::string> digit_names() {
  std::vector<std::string> names;
  for (int64_t i = 0; i < kNumClasses; ++i) names.push_back(std::to_string(i));
  return names;
}

// class_names, which must name every class when it is not empty.
void read_class_names(MnistOptions& out, const runner::Options& options, const std::string& key) {
  out.class_names = options.get_strings(key);
  auto names = static_cast<int64_t>(out.class_names.size());
  if (names != 0 && names != kNumClasses)
    throw runner::ConfigError("[" + options.section() + "] " + key + " has " +
                                  std::to_string(names) + " names; the dataset has " +
                                  std::to_string(kNumClasses) + " classes",
                              "name every class in label order, or leave class_names empty "
                              "for \"0\"..\"9\"");
}

const runner::OptionFields<MnistOptions>& fields() {
  static const auto fields = [] {
    runner::OptionFields<MnistOptions> f;
    f.custom({"data_dir", runner::KeyType::string, std::nullopt,
              "folder of train-images-idx3-ubyte, train-labels-idx1-ubyte, "
              "t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte (each plain or .gz)"},
             [](MnistOptions& out, const runner::Options& options, const std::string& key) {
               out.data_dir = options.get_string(key);
             });
    f.integer("train_size", &MnistOptions::train_size,
              "use only the first N training samples (0: all)", 0);
    f.integer("test_size", &MnistOptions::test_size, "use only the first N test samples (0: all)",
              0);
    f.flag("normalize", &MnistOptions::normalize,
           "true: (x/255 - mean)/std with the mean and std of the whole training file; "
           "false: x/255");
    f.custom({"class_names", runner::KeyType::string_list, std::vector<std::string>{},
              "names of the 10 classes in label order (empty: \"0\"..\"9\")"},
             read_class_names);
    add_download_keys(f);
    return f;
  }();
  return fields;
}

}  // namespace

MnistOptions MnistOptions::from(const runner::Options& options) { return fields().read(options); }

runner::Schema mnist_schema() { return fields().schema(); }

MnistDataset::MnistDataset(const MnistOptions& options) {
  if (options.download) download_missing_files(options.data_dir, options.source);
  MnistFiles files = find_mnist_files(options.data_dir);
  RawSplit train = load_split(files.train);
  RawSplit test = load_split(files.test);
  check_same_image_size(train, test, files);
  PixelScale pixels = options.normalize ? standardizing_scale(train.images) : PixelScale{};
  train = first_samples(train, options.train_size, "train_size", files.train.images);
  test = first_samples(test, options.test_size, "test_size", files.test.images);
  train_ = {train.images, train.labels};
  test_ = {test.images, test.labels};
  pixel_offset_ = pixels.offset;
  pixel_scale_ = pixels.scale;
  info_.sample_shape = {1, train.images.size(1), train.images.size(2)};
  info_.num_classes = kNumClasses;
  info_.class_names = options.class_names.empty() ? digit_names() : options.class_names;
}

int64_t MnistDataset::size(runner::Split split) const { return tensors(split).labels.size(0); }

runner::Batch MnistDataset::get_batch(runner::Split split, const torch::Tensor& indices) const {
  const SplitTensors& data = tensors(split);
  // (B, rows, cols) uint8 -> (B, 1, rows, cols) float32
  torch::Tensor images = data.images.index_select(0, indices).unsqueeze(1).to(torch::kFloat32);
  return {images.sub_(pixel_offset_).div_(pixel_scale_), data.labels.index_select(0, indices)};
}

const MnistDataset::SplitTensors& MnistDataset::tensors(runner::Split split) const {
  return split == runner::Split::train ? train_ : test_;
}

void add_mnist_dataset(runner::PluginBuilder& plugin) {
  plugin.add_dataset(
      "mnist", "1.0.0", "MNIST-format IDX files (MNIST, Fashion-MNIST), plain or gzip, in memory",
      mnist_schema(), [](const runner::Options& options, const runner::DatasetContext&) {
        return std::make_shared<MnistDataset>(MnistOptions::from(options));
      });
}

}  // namespace mnist
