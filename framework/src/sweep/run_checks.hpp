// What a sweep checks of each run before its first run starts: its ranks fit this machine,
// its batch splits over them, its techniques and its plan fit. A dry run asks the same.
#pragma once

#include <optional>

#include "config/experiment.hpp"
#include "plan/estimate.hpp"
#include "ranks/rank_setup.hpp"

namespace runner::sweep {

// Throws ConfigError naming the first check the run fails. `estimate`: the run's plan; none
// when it could not be made (the run then fails on its own when it starts).
void check_run(const config::RunConfig& run, const ranks::RankSetup& setup,
               const std::optional<plan::RunEstimate>& estimate);

}  // namespace runner::sweep
