// Schema validation of one section: types, ranges, choices, unknown and missing keys.
#pragma once

#include <string>
#include <vector>

#include "config/raw_config.hpp"
#include "runner/options.hpp"

namespace runner::config {

// `raw` as `spec` declares it, its range and choices checked; errors name `dotted`.
Value checked_value(const RawValue& raw, const std::string& dotted, const KeySpec& spec);

// The options of `section`: each key of `raw` checked against `schema`, the others set to
// their defaults. `handled_keys` are keys the caller has read already (a component's "name"):
// they are skipped here but listed among the known keys.
Options validate_section(const std::string& section, const RawSection& raw, const Schema& schema,
                         const std::vector<std::string>& handled_keys = {});

}  // namespace runner::config
