// The transforms that change pixel values: color_jitter (random, torchvision's adjustments)
// and normalize (deterministic, so test batches get it too).
#include "augment/photometric.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "augment/transforms.hpp"
#include "runner/errors.hpp"

namespace runner::augment {
namespace {

// (N, 1, H, W): torchvision's luma weights for RGB; a 1-channel image is its own gray.
torch::Tensor grayscale(const torch::Tensor& images) {
  if (images.size(1) == 1) return images;
  return 0.2989 * images.narrow(1, 0, 1) + 0.587 * images.narrow(1, 1, 1) +
         0.114 * images.narrow(1, 2, 1);
}

// factor * images + (1 - factor) * other, kept in [0, 1], as torchvision blends.
torch::Tensor blend(const torch::Tensor& images, const torch::Tensor& other,
                    const torch::Tensor& factor) {
  return (factor * images + (1 - factor) * other).clamp(0, 1);
}

class ColorJitter : public Transform {
 public:
  ColorJitter(double brightness, double contrast, double saturation, std::string section)
      : brightness_(brightness),
        contrast_(contrast),
        saturation_(saturation),
        section_(std::move(section)) {}

  bool random() const override { return true; }

  std::vector<int64_t> output_shape(const std::vector<int64_t>& sample_shape) const override {
    check_channels(sample_shape[0]);
    return sample_shape;
  }

  torch::Tensor apply(const torch::Tensor& images, at::Generator& generator) const override {
    check_channels(images.size(1));
    torch::Tensor out = images;
    if (brightness_ > 0) out = (factors(brightness_, out, generator) * out).clamp(0, 1);
    if (contrast_ > 0)
      out = blend(out, grayscale(out).mean({1, 2, 3}, true), factors(contrast_, out, generator));
    if (saturation_ > 0 && out.size(1) == 3)
      out = blend(out, grayscale(out), factors(saturation_, out, generator));
    return out;
  }

 private:
  // (N, 1, 1, 1) on the images' device: one factor per sample in [max(0, 1 - v), 1 + v].
  static torch::Tensor factors(double v, const torch::Tensor& images, at::Generator& generator) {
    return uniform(images.size(0), std::max(0.0, 1 - v), 1 + v, generator)
        .to(images.options())
        .view({-1, 1, 1, 1});
  }

  void check_channels(int64_t channels) const {
    if (channels != 1 && channels != 3)
      throw ConfigError(section_ + " (color_jitter) needs images with 1 or 3 channels, not " +
                            std::to_string(channels),
                        "remove color_jitter for this dataset");
  }

  double brightness_, contrast_, saturation_;
  std::string section_;
};

class Normalize : public Transform {
 public:
  Normalize(std::vector<double> mean, std::vector<double> deviations, std::string section)
      : mean_(std::move(mean)), std_(std::move(deviations)), section_(std::move(section)) {}

  bool random() const override { return false; }

  std::vector<int64_t> output_shape(const std::vector<int64_t>& sample_shape) const override {
    check_channels(sample_shape[0]);
    return sample_shape;
  }

  torch::Tensor apply(const torch::Tensor& images, at::Generator&) const override {
    check_channels(images.size(1));
    return (images - per_channel(mean_, images)) / per_channel(std_, images);
  }

 private:
  // (1, C or 1, 1, 1) on the images' device.
  static torch::Tensor per_channel(const std::vector<double>& values, const torch::Tensor& images) {
    return torch::tensor(values, torch::kFloat64).to(images.options()).view({1, -1, 1, 1});
  }

  void check_channels(int64_t channels) const {
    for (const auto& [key, values] : {std::pair{"mean", &mean_}, std::pair{"std", &std_}})
      if (values->size() != 1 && static_cast<int64_t>(values->size()) != channels)
        throw ConfigError(section_ + "." + key + " has " + std::to_string(values->size()) +
                              " values but the images have " + std::to_string(channels) +
                              " channels",
                          "give one value, or one per channel");
  }

  std::vector<double> mean_, std_;
  std::string section_;
};

}  // namespace

std::unique_ptr<Transform> make_color_jitter(const Options& options, const std::string& section) {
  return std::make_unique<ColorJitter>(options.get_double("brightness"),
                                       options.get_double("contrast"),
                                       options.get_double("saturation"), section);
}

std::unique_ptr<Transform> make_normalize(const Options& options, const std::string& section) {
  return std::make_unique<Normalize>(options.get_doubles("mean"), options.get_doubles("std"),
                                     section);
}

}  // namespace runner::augment
