// plan_points: a sweep's runs grouped by what is left of them once a layout's keys are gone.
#include "layout/plan_points.hpp"

#include <fmt/format.h>

#include <sstream>

#include <runner/errors.hpp>

namespace runner::layout {

toml::table without_layout(const config::RunConfig& run) {
  toml::table document = toml::parse(run.resolved_toml);
  document.erase("strategy");
  if (toml::table* train = document["train"].as_table())
    for (const char* key : {"micro_batches", "precision", "activation_checkpointing"})
      train->erase(key);
  return document;
}

std::vector<PlanPoint> plan_points(const config::Experiment& experiment, size_t pick) {
  const size_t runs = experiment.runs.size();
  if (pick > runs)
    throw ConfigError(fmt::format("runner plan --point {}: {} makes {} run{}", pick,
                                  experiment.file, runs, runs == 1 ? "" : "s"),
                      runs == 1 ? "drop --point: the file has one run"
                                : fmt::format("give --point 1 to {}", runs));
  if (pick > 0) return {{pick - 1, {pick - 1}}};
  std::vector<PlanPoint> points;
  std::vector<std::string> seen;
  for (size_t i = 0; i < runs; ++i) {
    std::ostringstream text;
    text << without_layout(experiment.runs[i]);
    size_t known = 0;
    while (known < seen.size() && seen[known] != text.str()) ++known;
    if (known < seen.size()) {
      points[known].alike.push_back(i);
      continue;
    }
    seen.push_back(text.str());
    points.push_back({i, {i}});
  }
  return points;
}

}  // namespace runner::layout
