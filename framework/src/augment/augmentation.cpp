// The list of transforms of a run, applied to a batch with a generator seeded from
// (seed, epoch, batch): the same batch index of the same epoch always gets the same draws.
#include "augment/augmentation.hpp"

#include <ATen/CPUGeneratorImpl.h>

#include <map>

#include "augment/checks.hpp"
#include "augment/geometric.hpp"
#include "augment/photometric.hpp"
#include "augment/schemas.hpp"
#include "config/error_text.hpp"
#include "runner/errors.hpp"

namespace runner::augment {
namespace {

using Factory = std::unique_ptr<Transform> (*)(const Options&, const std::string&);

const std::map<std::string, Factory>& factories() {
  static const std::map<std::string, Factory> all = {
      {"random_affine", make_random_affine}, {"random_rotation", make_random_rotation},
      {"random_crop", make_random_crop},     {"horizontal_flip", make_horizontal_flip},
      {"color_jitter", make_color_jitter},   {"normalize", make_normalize},
  };
  return all;
}

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t batch_seed(int64_t seed, int64_t epoch, int64_t batch) {
  uint64_t mixed = splitmix64(static_cast<uint64_t>(seed));
  mixed = splitmix64(mixed ^ static_cast<uint64_t>(epoch));
  return splitmix64(mixed ^ static_cast<uint64_t>(batch));
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text;
  for (int64_t extent : shape) text += (text.empty() ? "" : ", ") + std::to_string(extent);
  return "(" + text + ")";
}

}  // namespace

std::unique_ptr<Transform> make_transform(const config::AugmentConfig& config, size_t position) {
  const std::string section = "dataset.augment[" + std::to_string(position) + "]";
  auto factory = factories().find(config.name);
  if (factory == factories().end())
    throw ConfigError("unknown transform '" + config.name + "' in " + section +
                          config::suggestion(config.name, transform_names()),
                      "known transforms: " + config::joined(transform_names()));
  if (auto problem = transform_problem(config.name, config.options))
    throw ConfigError(section + "." + problem->key + " " + problem->what, problem->hint);
  return factory->second(config.options, section);
}

Augmentation::Augmentation(const std::vector<config::AugmentConfig>& configs) {
  for (size_t i = 0; i < configs.size(); ++i) transforms_.push_back(make_transform(configs[i], i));
}

std::vector<int64_t> Augmentation::output_shape(const std::vector<int64_t>& sample_shape) const {
  if (empty()) return sample_shape;
  if (sample_shape.size() != 3)
    throw ConfigError(
        "[[dataset.augment]] transforms images (C, H, W), but the dataset's samples "
        "have shape " +
            shape_text(sample_shape),
        "remove the [[dataset.augment]] tables for this dataset");
  std::vector<int64_t> shape = sample_shape;
  for (const auto& transform : transforms_) shape = transform->output_shape(shape);
  return shape;
}

torch::Tensor Augmentation::apply(const torch::Tensor& images, Split split, int64_t seed,
                                  int64_t epoch, int64_t batch) const {
  if (empty()) return images;
  RUNNER_CHECK(images.dim() == 4 && images.is_floating_point(),
               "augmentation takes (N, C, H, W) floating-point images");
  at::Generator generator = at::detail::createCPUGenerator(batch_seed(seed, epoch, batch));
  torch::Tensor out = images;
  for (const auto& transform : transforms_)
    if (split == Split::train || !transform->random()) out = transform->apply(out, generator);
  return out;
}

}  // namespace runner::augment
