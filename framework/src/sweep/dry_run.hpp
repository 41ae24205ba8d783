// `runner --dry-run`: every resolved run and its plan, with nothing trained.
#pragma once

#include "config/experiment.hpp"
#include "plugin_host/registry.hpp"

namespace runner::sweep {

// Prints each run's TOML and plan; a run whose components cannot be built prints why, and the
// exit code is the one the real run would give (experiment_exit_code). A dataset is
// built once for all the runs that resolve it alike (a sweep over the model reads it once).
int dry_run(const config::Experiment& experiment, const plugin_host::Registry& registry);

}  // namespace runner::sweep
