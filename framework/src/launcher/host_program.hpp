// Where the host program lies: libexec/runner/runner under the prefix of bin/runner, in the
// build tree and an installed tree alike.
#pragma once

#include <string>

namespace runner::launcher {

// The running program's own path (/proc/self/exe); empty where it cannot be read.
std::string this_program();

// The host beside `launcher`: "/usr/local/bin/runner" -> "/usr/local/libexec/runner/runner".
std::string host_program(const std::string& launcher);

}  // namespace runner::launcher
