// The transforms of [[dataset.augment]], built from options their schema has validated.
// `section` ("dataset.augment[2]") names the transform in the errors it raises.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <string>

#include "data/augment.hpp"
#include "runner/options.hpp"

namespace runner::data {

std::unique_ptr<Transform> make_random_affine(const Options& options, const std::string& section);
std::unique_ptr<Transform> make_random_rotation(const Options& options, const std::string& section);
std::unique_ptr<Transform> make_random_crop(const Options& options, const std::string& section);
std::unique_ptr<Transform> make_horizontal_flip(const Options& options, const std::string& section);
std::unique_ptr<Transform> make_color_jitter(const Options& options, const std::string& section);
std::unique_ptr<Transform> make_normalize(const Options& options, const std::string& section);

// (n) float64 on the CPU, uniform in [low, high]: the per-sample parameters of a batch.
inline torch::Tensor uniform(int64_t n, double low, double high, at::Generator& generator) {
  return torch::empty({n}, torch::kFloat64).uniform_(low, high, generator);
}

}  // namespace runner::data
