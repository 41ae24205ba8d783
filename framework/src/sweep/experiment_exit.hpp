// The exit code of an experiment from the exit codes of its failed runs, shared by a real run
// and --dry-run so that both answer the same for the same file.
#pragma once

#include <cstddef>
#include <vector>

namespace runner::sweep {

inline constexpr int kSweepFailedExitCode = 6;

// 0 when no run failed; the run's own code when the experiment has one run; 2 when every
// failed run of a sweep failed on its config (the file needs fixing, as when it is refused
// whole); else 6.
int experiment_exit_code(const std::vector<int>& failed_exit_codes, size_t runs);

}  // namespace runner::sweep
