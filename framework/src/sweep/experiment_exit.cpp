// An experiment's exit code from its failed runs' codes.
#include "sweep/experiment_exit.hpp"

#include <algorithm>

#include "runner/errors.hpp"

namespace runner::sweep {

int experiment_exit_code(const std::vector<int>& failed_exit_codes, size_t runs) {
  if (failed_exit_codes.empty()) return 0;
  if (runs == 1) return failed_exit_codes.front();
  const int config = static_cast<int>(ErrorClass::config);
  const bool all_config = std::all_of(failed_exit_codes.begin(), failed_exit_codes.end(),
                                      [config](int code) { return code == config; });
  return all_config ? config : kSweepFailedExitCode;
}

}  // namespace runner::sweep
