// `runner <experiment.toml>`: runs an experiment's runs, or plans them with --dry-run.
// Returns the process exit code; errors are thrown as runner::Error.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace runner::cli {

struct RunOptions {
  std::string experiment_file;
  std::vector<std::string> overrides;
  std::vector<std::string> plugin_path;
  bool dry_run = false;
  bool quiet = false;
  int nproc = 0;  // 0: each run's strategy.world_size
  // --resume: "" for each run's latest checkpoint, or a checkpoint's folder or a folder of
  // runs' checkpoints; nullopt without --resume.
  std::optional<std::string> resume;
  // --html: the page of the results file written when the sweep ends, "" for beside it;
  // nullopt without --html.
  std::optional<std::string> html;
};

// The process's exit code (README's table).
int run_command(const RunOptions& options);

}  // namespace runner::cli
