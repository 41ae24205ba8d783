// The trials of `runner plan`: the best predicted layouts run a few steps each, recorded in the
// experiment's results file, and printed predicted beside measured.
#pragma once

#include <optional>
#include <string>

#include "cli/plan_command.hpp"
#include "layout/search.hpp"
#include "plugin_host/registry.hpp"

namespace runner::cli {

struct Measured {
  const layout::Candidate* candidate = nullptr;  // of the search's fitting layouts
  std::optional<double> step_s;                  // none: not tried
};

// Refuses trials that need more ranks than this machine starts: a CPU rank per core, or GPUs.
void check_trials_fit_here(const PlanOptions& options, const layout::Devices& devices);

// --trials K: the best K predicted as one sweep. --budget-runs K: one at a time in predicted
// order, at most K, until none left may beat the fastest measured (layout/trials.hpp). Prints
// predicted beside measured and returns the fastest measured.
Measured run_trials(const PlanOptions& options, const layout::Search& search,
                    const plugin_host::Registry& registry);

// Written whole or not at all: to a temporary name, then renamed over `path`.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace runner::cli
