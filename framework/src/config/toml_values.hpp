// TOML values to the typed Values a schema declares.
#pragma once

#include <string>

#include "config/raw_config.hpp"
#include "runner/options.hpp"

namespace runner::config {

// `raw` as the type `spec` declares (an integer converts where a float is expected), or a
// ConfigError at raw.where naming `dotted`, the expected type and what was given.
// Checks the type only; see checked_value() for ranges and choices.
Value to_value(const RawValue& raw, const std::string& dotted, const KeySpec& spec);

// What a node is, for messages: "integer 3", "string \"x\"", "table".
std::string describe_node(const toml::node& node);

}  // namespace runner::config
