// Which run stands for each point of a sweep, and what every other run is beside it: the
// choice the page draws by, as Python's runner_results.plots.chosen_runs makes it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "results/results.hpp"

namespace runner::report::html {

// What a run is at its point: the result drawn, a shorter (smoke) or earlier completed run, or a
// run that did not complete; `partial` is one left "running" by a writer that is gone.
enum class Role { result, smoke, earlier, failed, skipped, partial, running };
const char* role_name(Role role);

// The runs of one experiment at one sweep point.
struct Point {
  std::string experiment;
  std::vector<std::pair<std::string, results::SweepValue>> values;  // as its first run has them
  std::vector<size_t> runs;                                         // indices, in file order
  std::optional<size_t> result;  // the completed run that trained the most; none without one
  // "completed" with a result, else the latest run's status ("partial" for an abandoned one).
  std::string status;
};

struct RunChoice {
  std::vector<Point> points;      // in the order of their first runs
  std::vector<size_t> points_of;  // each run's index into `points`
  std::vector<Role> roles;        // each run's role
};

// Runs are grouped by (experiment, sweep point). A point's result is, among its completed runs,
// the one with the most recorded steps (ties: the latest); its other completed runs are smoke
// runs when they recorded fewer steps, earlier ones otherwise.
RunChoice choose_runs(const std::vector<results::RunRecord>& runs);

}  // namespace runner::report::html
