// The runs `runner plan` lays out from a file: its one run, or the points of its sweep, those
// that differ only in what a layout sets (the strategy, micro-batches, precision,
// checkpointing) planned once, since every layout sets those anew.
#pragma once

#include <string>
#include <vector>

#include <toml++/toml.h>

#include "config/experiment.hpp"

namespace runner::layout {

// The run's resolved TOML without what a layout sets: its [strategy], and [train]'s
// micro_batches, precision and activation_checkpointing.
toml::table without_layout(const config::RunConfig& run);

struct PlanPoint {
  size_t run = 0;             // the experiment's run planned, 0-based
  std::vector<size_t> alike;  // the runs it stands for, itself first, 0-based
};

// Every run of the experiment that differs from the ones before it in more than its layout,
// in order; only run `pick` (1-based) when it is not 0. Throws ConfigError when `pick` is
// beyond the experiment's runs.
std::vector<PlanPoint> plan_points(const config::Experiment& experiment, size_t pick);

}  // namespace runner::layout
