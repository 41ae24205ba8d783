// A start of the host that only prints its version, to see whether it gets as far as its
// main: the dynamic loader and libgomp's constructor speak before it, and end or warn there.
#pragma once

#include <string>

namespace runner::launcher {

struct TrialStart {
  int exit_code = 0;   // where it exited; 127: the loader could not load a library
  int signal = 0;      // the signal that ended it, else 0
  std::string errors;  // what it wrote to stderr (at most 64 KiB)
};

// Runs `host --version` with its stdout discarded and its stderr kept, and waits for it.
// Throws std::system_error where it cannot be started at all (no fork, no pipe).
TrialStart start_once(const std::string& host);

}  // namespace runner::launcher
