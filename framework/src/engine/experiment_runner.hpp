// Runs every run of an experiment in order, records each in the results file, and prints the
// comparison table at the end. A failed run is recorded and the sweep goes on.
#pragma once

#include <string>

#include "config/experiment.hpp"
#include "engine/console.hpp"
#include "plugin_host/registry.hpp"

namespace runner::engine {

// results/<experiment name>.h5 unless [experiment] results names another file.
std::string results_path(const config::Experiment& experiment);

// 0 when every run completed; the error's exit code when the only run failed; 6 when some
// runs of a sweep failed.
int run_experiment(const config::Experiment& experiment, const plugin_host::Registry& registry,
                   Console& console, std::ostream& errors);

}  // namespace runner::engine
