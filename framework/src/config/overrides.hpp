// --set overrides: "dotted.key=value", applied to the raw sections before the sweep expands, so
// that they hold for every run. The value is TOML text, typed later by the key's schema.
#pragma once

#include <string>
#include <vector>

#include "config/raw_config.hpp"

namespace runner::config {

// Later overrides of the same key win. Overriding a swept key is an error.
void apply_overrides(RawConfig& raw, const std::vector<std::string>& overrides);

}  // namespace runner::config
