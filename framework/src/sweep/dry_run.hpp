// `runner --dry-run`: every resolved run and its plan, with nothing trained.
#pragma once

#include <ostream>

#include "config/experiment.hpp"
#include "plugin_host/registry.hpp"

namespace runner::sweep {

// Prints each run's TOML and plan, and what this machine would do with it: run it, skip it
// (a backend it lacks, too few GPUs) or refuse the sweep (a plan that does not fit, too many
// local ranks), with the reason; then one summary table of the runs. `quiet`: the table alone.
// A run whose components cannot be built prints why, and the exit code is the one the real
// run would give for that (experiment_exit_code); what this machine would skip or refuse is
// said and changes no exit code, since a dry run plans for other machines too. A dataset is
// built once for all the runs that resolve it alike (a sweep over the model reads it once).
int dry_run(const config::Experiment& experiment, const plugin_host::Registry& registry,
            std::ostream& out, std::ostream& errors, bool quiet = false);

}  // namespace runner::sweep
