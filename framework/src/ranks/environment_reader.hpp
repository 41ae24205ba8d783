// Typed reads of environment variables for one launcher. Every error is one line naming the
// variable, its value and who set it: `RANK = "x" is not an integer (set by torchrun)`.
#pragma once

#include <optional>
#include <string>

#include "ranks/rank_environment.hpp"

namespace runner::ranks {

class EnvironmentReader {
 public:
  // origin ends each message: "set by torchrun".
  EnvironmentReader(const EnvironmentLookup& get, std::string origin);

  // An empty variable counts as unset, so `export MASTER_PORT=` clears it.
  std::optional<std::string> text(const std::string& name) const;
  std::optional<int> integer(const std::string& name) const;

  // why_required says which other variables made this one required.
  std::string required_text(const std::string& name, const std::string& why_required) const;
  int required_integer(const std::string& name, const std::string& why_required) const;

  // Throws ConfigError: `NAME = shown_value problem (origin)`.
  [[noreturn]] void fail(const std::string& name, const std::string& shown_value,
                         const std::string& problem, std::string hint = {}) const;

 private:
  const EnvironmentLookup& get_;
  std::string origin_;
};

// "x" -> "\"x\"": raw values are shown quoted, so an empty or spaced value is visible.
std::string quoted(const std::string& value);

// The whole text as a decimal int, or nullopt ("", "3x", " 3", "+3", out of int range).
std::optional<int> parse_int(const std::string& text);

}  // namespace runner::ranks
