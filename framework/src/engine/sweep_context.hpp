// What every run of a sweep shares, and what recording one run in the results file takes,
// whichever way its ranks run (in this process, as local rank processes, under torchrun).
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "config/experiment.hpp"
#include "engine/resume_plan.hpp"
#include "engine/console.hpp"
#include "launch/rank_environment.hpp"
#include "plugin_host/registry.hpp"
#include "results/results.hpp"

namespace runner::engine {

// How this process was started, and how it starts its ranks.
struct SweepLaunch {
  launch::RankEnvironment environment;  // Launcher::none: the runner was started by hand
  std::vector<std::string> rank_argv;   // this runner again, as a rank of a local launch
  ResumeRequest resume;                 // --resume
};

struct SweepContext {
  const config::Experiment& experiment;
  const plugin_host::Registry& registry;
  Console& console;
  std::ostream& errors;
  std::string results_path;
  const SweepLaunch& launch;
};

struct RunOutcome {
  enum class Kind { completed, skipped, failed } kind = Kind::completed;
  int exit_code = 0;
};

results::RunHeader header_of(const SweepContext& c, const config::RunConfig& run,
                             int world_size);

// The run's swept keys and values, typed as the results file keeps them.
std::vector<std::pair<std::string, results::SweepValue>> sweep_point_of(
    const config::RunConfig& run);

using TrainFunction = std::function<results::Summary(results::RunWriter& writer)>;

// The run's writer: a new group, or the plan's group cut back to what its checkpoint had
// recorded.
struct OpenRun {
  std::unique_ptr<results::ResultsFile> file;
  std::unique_ptr<results::RunWriter> writer;
};
OpenRun open_run(const SweepContext& c, const config::RunConfig& run, int world_size,
                 const ResumePlan& plan);

// Trains through `train` and records the outcome: completed, skipped (RunSkipped) or failed,
// printing the error (prefixed "rank R: " when `rank_prefix`). With `writes` false (ranks
// other than 0) nothing goes to the file.
RunOutcome record_run(const SweepContext& c, const config::RunConfig& run, bool writes,
                      int world_size, const std::string& rank_prefix, const ResumePlan& plan,
                      const TrainFunction& train);

// Marks the run failed with `error`; a results file that cannot take it (its disk is full)
// leaves the error that ended the run as the one reported.
void record_failed(results::RunWriter& writer, const std::string& error);

// The error line and its hint on the error stream.
void print_error(std::ostream& errors, const std::string& prefix, const std::string& message,
                 const std::string& hint);

}  // namespace runner::engine
