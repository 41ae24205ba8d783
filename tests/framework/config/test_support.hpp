// What the config tests share: the fake schemas (fake_schemas.hpp), a minimal experiment, and
// helpers to catch and read errors.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "config/load_experiment.hpp"
#include "fake_schemas.hpp"
#include "runner/errors.hpp"

namespace runner::config::test {

// The smallest valid experiment; tests append what they check.
inline const std::string kMinimal =
    "[dataset]\n"
    "name = \"mnist\"\n"
    "data_dir = \"/data/mnist\"\n"
    "[model]\n"
    "name = \"lenet5\"\n";

inline Experiment parse(const std::string& text, const std::vector<std::string>& overrides = {}) {
  static const FakeSchemas schemas;
  return parse_experiment(text, "exp.toml", overrides, schemas);
}

// The ConfigError that parsing `text` throws; fails the test when there is none.
inline ConfigError parse_error(const std::string& text,
                               const std::vector<std::string>& overrides = {}) {
  try {
    parse(text, overrides);
  } catch (const ConfigError& error) {
    return error;
  }
  ADD_FAILURE() << "no ConfigError for:\n" << text;
  return ConfigError("");
}

// Passes when `part` occurs in `text`; the failure shows both.
inline ::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

}  // namespace runner::config::test
