// The transforms that change pixel values: color_jitter and normalize.
#pragma once

#include <memory>
#include <string>

#include "augment/augmentation.hpp"
#include "runner/options.hpp"

namespace runner::augment {

// Built from options their schema has validated; `section` ("dataset.augment[2]") names the
// transform in the errors it raises.
std::unique_ptr<Transform> make_color_jitter(const Options& options, const std::string& section);
std::unique_ptr<Transform> make_normalize(const Options& options, const std::string& section);

}  // namespace runner::augment
