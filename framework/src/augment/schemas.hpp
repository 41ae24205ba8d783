// The batch transforms that [[dataset.augment]] tables may name, and the keys of each. The host
// owns them (framework/src/data applies them), so any image dataset can be augmented.
#pragma once

#include <string>
#include <vector>

#include "runner/options.hpp"

namespace runner::augment {

// In the order `runner describe augment` lists them.
const std::vector<std::string>& transform_names();
// nullptr when no transform has that name.
const Schema* transform_schema(const std::string& name);
// One line on what the transform does, for `runner describe`.
const std::string& transform_description(const std::string& name);

}  // namespace runner::augment
