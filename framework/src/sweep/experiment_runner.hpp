// Runs every run of an experiment in order, records each in the results file, and prints the
// comparison table at the end. A failed run is recorded and the sweep goes on.
#pragma once

#include <string>

#include <ostream>
#include <vector>

#include "checkpoint/resume_choice.hpp"
#include "config/experiment.hpp"
#include "plugin_host/registry.hpp"
#include "ranks/rank_environment.hpp"
#include "record/console.hpp"

namespace runner::sweep {

// How this process was started, and how it starts its ranks.
struct SweepLaunch {
  ranks::RankEnvironment environment;  // Launcher::none: the runner was started by hand
  std::vector<std::string> rank_argv;  // this runner again, as a rank of a local launch
  checkpoint::ResumeRequest resume;    // --resume
  bool restarted = false;              // the launcher started the ranks again: --resume implied
};

// results/<experiment name>.h5 unless [experiment] results names another file.
std::string results_path(const config::Experiment& experiment);

// Each run takes the ranks its strategy asks for: one in this process; several as processes
// of `given.rank_argv` on this machine; under torchrun or srun, this process is one rank of
// every run. Returns 0 when every run completed or was skipped, else experiment_exit_code().
int run_experiment(const config::Experiment& experiment, const plugin_host::Registry& registry,
                   record::Console& console, std::ostream& errors, const SweepLaunch& given = {});

}  // namespace runner::sweep
