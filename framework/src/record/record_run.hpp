// Recording one run in the results file and TensorBoard: its header, where its record starts,
// and its outcome, whichever way its ranks run (in this process, as local rank processes, under
// torchrun).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "config/experiment.hpp"
#include "record/console.hpp"
#include "results/results.hpp"

namespace runner::record {

// What recording a run takes from the experiment it belongs to.
struct Recording {
  const config::Experiment& experiment;
  Console& console;
  std::ostream& errors;
  std::string results_path;
};

// Where a run's record starts: a new group, or an earlier group of the run; `go_on` cuts that
// group back to what `checkpoint` had recorded (to nothing without a checkpoint).
struct RunStart {
  std::string group;  // empty: a new one
  bool go_on = false;
  std::string checkpoint;  // the folder the run loads; empty: from the start
  int64_t epochs = 0, steps = 0;
};

struct RunOutcome {
  enum class Kind { completed, skipped, failed } kind = Kind::completed;
  int exit_code = 0;
  std::string group;  // the run's group in the results file; empty where this process wrote none
};

// `local_ranks`: the run's ranks on this machine, which share its cores.
results::RunHeader header_of(const Recording& r, const config::RunConfig& run, int world_size,
                             int local_ranks);

// The run's swept keys and values, typed as the results file keeps them.
std::vector<std::pair<std::string, results::SweepValue>> sweep_point_of(
    const config::RunConfig& run);

using TrainFunction = std::function<results::Summary(results::RunWriter& writer)>;

// The run's writer: a new group, or the start's group cut back to what its checkpoint had
// recorded.
struct OpenRun {
  std::unique_ptr<results::ResultsFile> file;
  std::unique_ptr<results::RunWriter> writer;
};
OpenRun open_run(const Recording& r, const config::RunConfig& run, int world_size, int local_ranks,
                 const RunStart& start);

// Trains through `train` and records the outcome: completed, skipped (RunSkipped) or failed,
// printing the error (prefixed "rank R: " when `rank_prefix`). With `writes` false (ranks
// other than 0) nothing goes to the file.
RunOutcome record_run(const Recording& r, const config::RunConfig& run, bool writes, int world_size,
                      int local_ranks, const std::string& rank_prefix, const RunStart& start,
                      const TrainFunction& train);

// Marks the run failed with `error`; a results file that cannot take it (its disk is full)
// leaves the error that ended the run as the one reported.
void record_failed(results::RunWriter& writer, const std::string& error);

// The error line and its hint on the error stream.
void print_error(std::ostream& errors, const std::string& prefix, const std::string& message,
                 const std::string& hint);

}  // namespace runner::record
