// The transforms that move pixels: random_affine, random_rotation, random_crop,
// horizontal_flip. Each draws its per-sample parameters on the CPU and works on the whole batch.
#include "augment/geometric.hpp"

#include <utility>

#include "augment/transforms.hpp"
#include "runner/errors.hpp"

namespace runner::augment {
namespace {

namespace F = torch::nn::functional;

constexpr double kRadiansPerDegree = 3.14159265358979323846 / 180.0;

// The linear part of each map, in pixels: scale * rotation * x-shear. (N, 2, 2)
torch::Tensor forward_linear(const AffineParams& params) {
  const torch::Tensor angle = params.angle * kRadiansPerDegree;
  const torch::Tensor cos = torch::cos(angle);
  const torch::Tensor sin = torch::sin(angle);
  const torch::Tensor shear = torch::tan(params.shear * kRadiansPerDegree);
  // rotation [[cos, sin], [-sin, cos]] (y points down) times shear [[1, shear], [0, 1]]
  const torch::Tensor top = torch::stack({cos, cos * shear + sin}, 1);
  const torch::Tensor bottom = torch::stack({-sin, cos - sin * shear}, 1);
  return params.scale.view({-1, 1, 1}) * torch::stack({top, bottom}, 1);
}

struct AffineRanges {
  double degrees = 0;
  std::vector<double> translate = {0, 0};  // fractions of width and height
  std::vector<double> scale = {1, 1};
  double shear = 0;
  Interpolation interpolation = Interpolation::nearest;
  double fill = 0;
};

AffineRanges resampling_of(const Options& options) {
  AffineRanges ranges;
  ranges.degrees = options.get_double("degrees");
  ranges.interpolation = options.get_string("interpolation") == "bilinear" ? Interpolation::bilinear
                                                                           : Interpolation::nearest;
  ranges.fill = options.get_double("fill");
  return ranges;
}

class RandomAffine : public Transform {
 public:
  explicit RandomAffine(AffineRanges ranges) : ranges_(std::move(ranges)) {}

  bool random() const override { return true; }

  torch::Tensor apply(const torch::Tensor& images, at::Generator& generator) const override {
    const int64_t n = images.size(0), height = images.size(2), width = images.size(3);
    const double max_dx = ranges_.translate[0] * static_cast<double>(width),
                 max_dy = ranges_.translate[1] * static_cast<double>(height);
    AffineParams params;
    params.angle = uniform(n, -ranges_.degrees, ranges_.degrees, generator);
    params.translate_x = uniform(n, -max_dx, max_dx, generator);
    params.translate_y = uniform(n, -max_dy, max_dy, generator);
    params.scale = uniform(n, ranges_.scale[0], ranges_.scale[1], generator);
    params.shear = uniform(n, -ranges_.shear, ranges_.shear, generator);
    return resample(images, affine_theta(params, height, width), ranges_.interpolation,
                    ranges_.fill);
  }

 private:
  AffineRanges ranges_;
};

class RandomCrop : public Transform {
 public:
  RandomCrop(std::vector<int64_t> size, int64_t padding, std::string section)
      : size_(std::move(size)), padding_(padding), section_(std::move(section)) {}

  bool random() const override { return true; }

  std::vector<int64_t> output_shape(const std::vector<int64_t>& sample_shape) const override {
    const auto [height, width] = crop_size(sample_shape[1], sample_shape[2]);
    return {sample_shape[0], height, width};
  }

  torch::Tensor apply(const torch::Tensor& images, at::Generator& generator) const override {
    const auto [height, width] = crop_size(images.size(2), images.size(3));
    const torch::Tensor padded =
        torch::constant_pad_nd(images, {padding_, padding_, padding_, padding_}, 0);
    const int64_t n = padded.size(0), channels = padded.size(1);
    const torch::Tensor rows = window(padded.size(2), height, n, generator, images.device());
    const torch::Tensor cols = window(padded.size(3), width, n, generator, images.device());
    const torch::Tensor band =  // (N, C, height, padded width)
        padded.gather(2,
                      rows.view({n, 1, height, 1}).expand({n, channels, height, padded.size(3)}));
    return band.gather(3, cols.view({n, 1, 1, width}).expand({n, channels, height, width}));
  }

 private:
  // The crop's (height, width), checked against the padded image.
  std::pair<int64_t, int64_t> crop_size(int64_t height, int64_t width) const {
    const int64_t padded_height = height + 2 * padding_, padded_width = width + 2 * padding_;
    if (size_.empty()) return {height, width};
    const int64_t crop_height = size_[0], crop_width = size_.back();
    if (crop_height > padded_height || crop_width > padded_width)
      throw ConfigError(section_ + ".size = " + value_to_string(size_) +
                            " is larger than the padded image (" + std::to_string(padded_height) +
                            " x " + std::to_string(padded_width) + ")",
                        "use a smaller size, or more padding");
    return {crop_height, crop_width};
  }

  // (N, length) indices of a window of `length` at a random offset into `extent`.
  static torch::Tensor window(int64_t extent, int64_t length, int64_t n, at::Generator& generator,
                              const torch::Device& device) {
    const torch::Tensor start = torch::randint(extent - length + 1, {n}, generator, torch::kLong);
    return (start.view({n, 1}) + torch::arange(length, torch::kLong)).to(device);
  }

  std::vector<int64_t> size_;  // [], [s] or [h, w]
  int64_t padding_;
  std::string section_;
};

class HorizontalFlip : public Transform {
 public:
  explicit HorizontalFlip(double p) : p_(p) {}

  bool random() const override { return true; }

  torch::Tensor apply(const torch::Tensor& images, at::Generator& generator) const override {
    const int64_t n = images.size(0);
    const torch::Tensor flipped = uniform(n, 0, 1, generator) < p_;  // (N) bool
    return torch::where(flipped.to(images.device()).view({n, 1, 1, 1}), images.flip({3}), images);
  }

 private:
  double p_;
};

}  // namespace

torch::Tensor affine_theta(const AffineParams& params, int64_t height, int64_t width) {
  const torch::Tensor inverse = torch::inverse(forward_linear(params));  // (N, 2, 2)
  // Pixels per normalized unit along x and y: D = diag(half).
  const torch::Tensor half = torch::tensor(
      {static_cast<double>(width) / 2, static_cast<double>(height) / 2}, torch::kFloat64);
  const torch::Tensor shift = torch::stack({params.translate_x, params.translate_y}, 1);  // (N, 2)
  // input = D^-1 A^-1 D output - D^-1 A^-1 shift, in normalized coordinates
  const torch::Tensor linear = inverse * half.view({1, 1, 2}) / half.view({1, 2, 1});
  const torch::Tensor offset = -inverse.matmul(shift.unsqueeze(2)).squeeze(2) / half;
  return torch::cat({linear, offset.unsqueeze(2)}, 2);
}

torch::Tensor resample(const torch::Tensor& images, const torch::Tensor& theta,
                       Interpolation interpolation, double fill) {
  const torch::Tensor grid = F::affine_grid(theta.to(images.options()), images.sizes(), false);
  auto options = F::GridSampleFuncOptions().padding_mode(torch::kZeros).align_corners(false);
  if (interpolation == Interpolation::nearest)
    options.mode(torch::kNearest);
  else
    options.mode(torch::kBilinear);
  if (fill == 0) return F::grid_sample(images, grid, options);
  // A channel of ones, sampled alongside, tells how much of each output pixel lies inside.
  const int64_t channels = images.size(1);
  const torch::Tensor sampled = F::grid_sample(
      torch::cat({images, torch::ones_like(images.narrow(1, 0, 1))}, 1), grid, options);
  const torch::Tensor inside = sampled.narrow(1, channels, 1);
  return sampled.narrow(1, 0, channels) + fill * (1 - inside);
}

std::unique_ptr<Transform> make_random_affine(const Options& options, const std::string&) {
  AffineRanges ranges = resampling_of(options);
  ranges.translate = options.get_doubles("translate");
  ranges.scale = options.get_doubles("scale");
  ranges.shear = options.get_double("shear");
  return std::make_unique<RandomAffine>(std::move(ranges));
}

std::unique_ptr<Transform> make_random_rotation(const Options& options, const std::string&) {
  return std::make_unique<RandomAffine>(resampling_of(options));
}

std::unique_ptr<Transform> make_random_crop(const Options& options, const std::string& section) {
  return std::make_unique<RandomCrop>(options.get_ints("size"), options.get_int("padding"),
                                      section);
}

std::unique_ptr<Transform> make_horizontal_flip(const Options& options, const std::string&) {
  return std::make_unique<HorizontalFlip>(options.get_double("p"));
}

}  // namespace runner::augment
