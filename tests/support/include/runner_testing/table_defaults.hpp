// A component's table as the host resolves an empty one: every key of its schema at its
// default, so a test sets only the keys it is about.
#pragma once

#include <runner/options.hpp>

#include <string>

namespace runner::testing {

inline Options table_defaults(const Schema& schema, const std::string& section) {
  Options options(section);
  for (const KeySpec& key : schema.keys())
    if (key.default_value) options.set(key.name, *key.default_value);
  return options;
}

}  // namespace runner::testing
