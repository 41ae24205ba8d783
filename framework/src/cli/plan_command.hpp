// `runner plan EXPERIMENT.toml --devices N`: which layout to train the experiment's run with.
// Returns the process exit code; errors are thrown as runner::Error.
#pragma once

#include <string>
#include <vector>

namespace runner::cli {

// What the plan's quantities may be: a device of 100 KiB to 64 TiB, rates of 0.001 to 100,000
// GB/s or TFLOPS. Past them a number is a typo (1e30 GiB), and a plan with it is of no machine.
inline constexpr double kLeastDeviceGiB = 0.0001, kMostDeviceGiB = 65536;
inline constexpr double kLeastRate = 0.001, kMostRate = 100000;

struct PlanOptions {
  std::string experiment_file;
  std::vector<std::string> overrides;    // --set
  std::vector<std::string> plugin_path;  // --plugin-path
  int devices = 1;
  std::string device;               // cpu or cuda; empty: the experiment's train.device
  double device_memory = 0;         // GiB per device; 0: the device's own
  std::vector<std::string> tflops;  // "bf16=989": a GEMM rate given instead of measured
  double bandwidth = 0;             // GB/s between ranks; 0: measured (CPU)
  double memory_bandwidth = 0;      // GB/s of elementwise traffic; 0: measured
  size_t top = 10;                  // rows of the table
  size_t trials = 0;                // the best predicted layouts to run and measure
  size_t budget_runs = 0;           // or at most this many, one at a time, stopping early
  int64_t trial_steps = 4;          // steps of each trial
  std::string write;                // where to write the best layout as an experiment file
  bool force = false;               // --force: --write replaces a file of another kind
  size_t point = 0;                 // --point N: run N (1-based) of the file's sweep; 0: each
};

int plan_command(const PlanOptions& options);

}  // namespace runner::cli
