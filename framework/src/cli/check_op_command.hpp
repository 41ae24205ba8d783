// `runner check-op`: an op plugin checked against its reference, gradchecked and timed.
// Returns the process exit code; errors are thrown as runner::Error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace runner::cli {

struct CheckOpOptions {
  std::string op;
  std::string dtype = "float32";
  std::string device = "cpu";
  std::vector<std::string> shapes;    // "64x16x28x28", comma-separated or repeated
  std::vector<std::string> settings;  // the op's options, key=value
  std::vector<std::string> plugin_path;
  int repeats = 5;
  int64_t threads = 0;  // 0: every core
};

// 0 when every comparison is within the op's tolerance and every gradcheck passes, else 1.
int check_op_command(const CheckOpOptions& options);

}  // namespace runner::cli
