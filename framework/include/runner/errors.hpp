// Error classes shared by the host and plugins. Each class maps to one exit code,
// so a user (or a script) can tell a bad config from corrupt data from a broken plugin.
#pragma once

#include <stdexcept>
#include <string>

namespace runner {

enum class ErrorClass { config = 2, plugin = 3, data = 4, runtime = 5 };

class Error : public std::runtime_error {
 public:
  Error(ErrorClass error_class, const std::string& message, std::string hint = {})
      : std::runtime_error(message), class_(error_class), hint_(std::move(hint)) {}
  ErrorClass error_class() const { return class_; }
  int exit_code() const { return static_cast<int>(class_); }
  const std::string& hint() const { return hint_; }

 private:
  ErrorClass class_;
  std::string hint_;
};

// A key, value or file of the experiment is wrong.
struct ConfigError : Error {
  explicit ConfigError(const std::string& message, std::string hint = {})
      : Error(ErrorClass::config, message, std::move(hint)) {}
};

// A plugin library cannot be loaded, or its code failed.
struct PluginError : Error {
  explicit PluginError(const std::string& message, std::string hint = {})
      : Error(ErrorClass::plugin, message, std::move(hint)) {}
};

// A data file is missing, truncated or corrupt.
struct DataError : Error {
  explicit DataError(const std::string& message, std::string hint = {})
      : Error(ErrorClass::data, message, std::move(hint)) {}
};

// Training itself failed (NaN loss, out of memory, a dead rank).
struct RunError : Error {
  explicit RunError(const std::string& message, std::string hint = {})
      : Error(ErrorClass::runtime, message, std::move(hint)) {}
};

// The run cannot take place on this machine (no GPU for NCCL, one CUDA device for dp): the
// run is recorded as skipped with this reason and a sweep goes on. Thrown before training.
struct RunSkipped : Error {
  explicit RunSkipped(const std::string& reason, std::string hint = {})
      : Error(ErrorClass::runtime, reason, std::move(hint)) {}
};

}  // namespace runner

// Internal invariant: a failure here is a bug in runner or a plugin, reported with its place.
#define RUNNER_CHECK(cond, msg)                                                            \
  do {                                                                                     \
    if (!(cond))                                                                           \
      throw ::runner::RunError(std::string("internal check failed at ") + __FILE__ + ":" + \
                               std::to_string(__LINE__) + ": " #cond ": " + (msg));        \
  } while (0)
