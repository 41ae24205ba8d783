// The runner's commands. Each returns the process exit code; errors are thrown as runner::Error.
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
};

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

int run_command(const RunOptions& options);
// 0 when every comparison is within the op's tolerance and every gradcheck passes, else 1.
int check_op_command(const CheckOpOptions& options);
int plugins_command(const std::vector<std::string>& plugin_path);
int describe_command(const std::string& what, const std::vector<std::string>& plugin_path);
struct ReportOptions {
  std::string file;
  bool csv = false;               // CSV instead of the terminal's table
  std::string csv_path;           // where to write the CSV; empty: standard output
  std::vector<std::string> columns;  // run_table's names; empty: every column (CSV) or
                                     // those that fit (terminal)
};

int report_command(const ReportOptions& options);

struct ExportOptions {
  std::string file;  // results file (.h5)
  std::string run;   // its group, id or label
  std::string out;   // the files' path without extension; empty: beside the results file
};

// The weights of the run's latest checkpoint as <stem>.pt (torch.load) and <stem>.safetensors.
int export_command(const ExportOptions& options);

}  // namespace runner::cli
