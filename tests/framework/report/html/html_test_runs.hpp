// Runs made in memory for the tests of the report page: a status, a number of steps, a sweep
// point and an experiment, the rest left as a run that recorded nothing else.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "results/results.hpp"

namespace runner::report::html::testing {

using SweepPoint = std::vector<std::pair<std::string, results::SweepValue>>;

// Step s has loss 1 / s and lasts s milliseconds.
inline results::RunRecord test_run(const std::string& id, results::Status status, int64_t steps = 0,
                                   const SweepPoint& point = {},
                                   const std::string& experiment = "study") {
  results::RunRecord run;
  run.group = id;
  run.header.run_id = id;
  run.header.label = "label of " + id;
  run.header.experiment = experiment;
  run.header.sweep_point = point;
  run.status = status;
  for (int64_t s = 1; s <= steps; ++s)
    run.steps.push_back({s, 1.0 / static_cast<double>(s), 0.1, 0.001 * static_cast<double>(s)});
  return run;
}

// A run left "running" by a writer that is gone.
inline results::RunRecord abandoned_run(const std::string& id, const SweepPoint& point = {}) {
  results::RunRecord run = test_run(id, results::Status::running, 3, point);
  run.abandoned = true;
  return run;
}

}  // namespace runner::report::html::testing
