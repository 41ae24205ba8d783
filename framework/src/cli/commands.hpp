// The runner's commands. Each returns the process exit code; errors are thrown as runner::Error.
#pragma once

#include <string>
#include <vector>

namespace runner::cli {

struct RunOptions {
  std::string experiment_file;
  std::vector<std::string> overrides;
  std::vector<std::string> plugin_path;
  bool dry_run = false;
  bool quiet = false;
};

int run_command(const RunOptions& options);
int plugins_command(const std::vector<std::string>& plugin_path);
int describe_command(const std::string& what, const std::vector<std::string>& plugin_path);
int report_command(const std::string& file, const std::string& csv_path);

}  // namespace runner::cli
