// The transforms that move pixels (random_affine, random_rotation, random_crop, horizontal_flip),
// and the affine resampling behind the first two, exposed so that a fixed transform (a rotation by
// exactly 90 degrees) can be checked.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <string>

#include "augment/augmentation.hpp"
#include "runner/options.hpp"

namespace runner::augment {

// Built from options their schema has validated; `section` ("dataset.augment[2]") names the
// transform in the errors it raises.
std::unique_ptr<Transform> make_random_affine(const Options& options, const std::string& section);
std::unique_ptr<Transform> make_random_rotation(const Options& options, const std::string& section);
std::unique_ptr<Transform> make_random_crop(const Options& options, const std::string& section);
std::unique_ptr<Transform> make_horizontal_flip(const Options& options, const std::string& section);

enum class Interpolation { nearest, bilinear };

// One affine map per sample, each field (N) float64 on the CPU. In pixels about the image's
// centre (x right, y down): shear along x, then scale, then rotate (a positive angle turns the
// image counter-clockwise on screen), then shift.
struct AffineParams {
  torch::Tensor angle;        // degrees
  torch::Tensor translate_x;  // pixels, positive: right
  torch::Tensor translate_y;  // pixels, positive: down
  torch::Tensor scale;        // zoom factor
  torch::Tensor shear;        // degrees
};

// (N, 2, 3) float64: for each output pixel, where to sample the input, in the normalized
// coordinates of affine_grid with align_corners = false.
torch::Tensor affine_theta(const AffineParams& params, int64_t height, int64_t width);

// images (N, C, H, W) sampled through theta (N, 2, 3); pixels that come from outside the input
// take the value `fill`.
torch::Tensor resample(const torch::Tensor& images, const torch::Tensor& theta,
                       Interpolation interpolation, double fill);

}  // namespace runner::augment
