// What the augmentation tests share: a transform's config with its schema's defaults, and one
// transform applied to a training batch.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "augment/augmentation.hpp"
#include "augment/schemas.hpp"

namespace runner::augment::test {

// `name`'s defaults, then `values`; as a validated [[dataset.augment]] table would give them.
inline config::AugmentConfig transform(const std::string& name,
                                       const std::map<std::string, Value>& values = {}) {
  config::AugmentConfig config{name, Options("dataset.augment[0]")};
  for (const auto& spec : augment::transform_schema(name)->keys())
    if (spec.default_value) config.options.set(spec.name, *spec.default_value);
  for (const auto& [key, value] : values) config.options.set(key, value);
  return config;
}

inline torch::Tensor train_batch(const config::AugmentConfig& config, const torch::Tensor& images,
                                 int64_t batch = 0) {
  return Augmentation({config}).apply(images, Split::train, 7, 1, batch);
}

// (n, c, h, w) uniform in [low, high), the same for every run of the test.
inline torch::Tensor images(int64_t n, int64_t c, int64_t h, int64_t w, double low = 0,
                            double high = 1) {
  torch::manual_seed(11);
  return torch::rand({n, c, h, w}) * (high - low) + low;
}

inline ::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

// The ConfigError's message that `action` throws, or "" (and a failure) when none.
template <typename Action>
std::string config_error(Action action) {
  try {
    action();
  } catch (const ConfigError& error) {
    return error.what();
  }
  ADD_FAILURE() << "no ConfigError";
  return "";
}

}  // namespace runner::augment::test
