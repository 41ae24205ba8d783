// choose_runs: points of a sweep, each run's role there.
#include "report/html/run_choice.hpp"

#include <algorithm>

namespace runner::report::html {

namespace {

using results::RunRecord;
using results::Status;
using SweepPoint = std::vector<std::pair<std::string, results::SweepValue>>;

// Two runs of one experiment list their swept keys in one order, but runs of a file's several
// experiments need not: the point is the set of (key, value) pairs.
SweepPoint sorted_by_key(SweepPoint point) {
  std::sort(point.begin(), point.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  return point;
}

bool at_point(const RunRecord& run, const Point& point) {
  return run.header.experiment == point.experiment &&
         sorted_by_key(run.header.sweep_point) == sorted_by_key(point.values);
}

size_t point_index(const RunRecord& run, std::vector<Point>& points) {
  for (size_t i = 0; i < points.size(); ++i)
    if (at_point(run, points[i])) return i;
  points.push_back({run.header.experiment, run.header.sweep_point, {}, std::nullopt, ""});
  return points.size() - 1;
}

// The status a run that did not complete shows: a run left "running" is partial once its
// writer is gone.
const char* unfinished_status(const RunRecord& run) {
  if (run.status == Status::running && run.abandoned) return "partial";
  return results::status_name(run.status);
}

// The completed run with the most recorded steps; the later one of a tie.
std::optional<size_t> result_of(const Point& point, const std::vector<RunRecord>& runs) {
  std::optional<size_t> result;
  for (size_t index : point.runs) {
    if (runs[index].status != Status::completed) continue;
    if (!result || runs[index].steps.size() >= runs[*result].steps.size()) result = index;
  }
  return result;
}

Role role_of(size_t index, const Point& point, const std::vector<RunRecord>& runs) {
  const RunRecord& run = runs[index];
  switch (run.status) {
    case Status::failed: return Role::failed;
    case Status::skipped: return Role::skipped;
    case Status::running: return run.abandoned ? Role::partial : Role::running;
    case Status::completed: break;
  }
  if (index == *point.result) return Role::result;
  return run.steps.size() < runs[*point.result].steps.size() ? Role::smoke : Role::earlier;
}

}  // namespace

const char* role_name(Role role) {
  switch (role) {
    case Role::result: return "result";
    case Role::smoke: return "smoke";
    case Role::earlier: return "earlier";
    case Role::failed: return "failed";
    case Role::skipped: return "skipped";
    case Role::partial: return "partial";
    case Role::running: return "running";
  }
  return "";
}

RunChoice choose_runs(const std::vector<RunRecord>& runs) {
  RunChoice choice;
  for (size_t index = 0; index < runs.size(); ++index) {
    const size_t point = point_index(runs[index], choice.points);
    choice.points[point].runs.push_back(index);
    choice.points_of.push_back(point);
  }
  for (Point& point : choice.points) {
    point.result = result_of(point, runs);
    point.status = point.result ? "completed" : unfinished_status(runs[point.runs.back()]);
  }
  for (size_t index = 0; index < runs.size(); ++index)
    choice.roles.push_back(role_of(index, choice.points[choice.points_of[index]], runs));
  return choice;
}

}  // namespace runner::report::html
