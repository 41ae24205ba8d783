// A run failed on this rank because another rank did (it died, threw, or stopped answering):
// the other rank reports its own error, so this one must not report it as its own.
#pragma once

#include "runner/errors.hpp"

namespace runner::distributed {

struct PeerFailure : RunError {
  explicit PeerFailure(const std::string& message) : RunError(message) {}
};

}  // namespace runner::distributed
