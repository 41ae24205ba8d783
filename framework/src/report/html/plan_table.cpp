// plan_table: `runner plan`'s trials in a results file, as the page's "plans" (page_data.md).
#include "report/html/plan_table.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "report/run_values.hpp"
#include "results/plan_trials.hpp"

namespace runner::report::html {

namespace {

using nlohmann::json;

struct Trial {
  size_t run = 0;
  double predicted_s = 0;
  std::optional<double> measured_s;
};

struct Plan {
  std::string experiment;
  std::vector<Trial> trials;
};

// The run that stands for the point: its result, else its latest run.
size_t standing_run(const Point& point) { return point.result.value_or(point.runs.back()); }

std::vector<Plan> plans_of(const std::vector<results::RunRecord>& runs, const RunChoice& choice) {
  std::vector<Plan> plans;
  for (const Point& point : choice.points) {
    const size_t run = standing_run(point);
    const std::optional<double> predicted = plan_step_s(runs[run]);
    if (!predicted) continue;
    auto plan = std::find_if(plans.begin(), plans.end(),
                             [&](const Plan& p) { return p.experiment == point.experiment; });
    if (plan == plans.end()) plan = plans.insert(plans.end(), Plan{point.experiment, {}});
    plan->trials.push_back({run, *predicted, results::measured_step_s(runs[run])});
  }
  return plans;
}

json correlation_json(const std::vector<Trial>& trials) {
  std::vector<double> predicted, measured;
  for (const Trial& trial : trials)
    if (trial.measured_s) {
      predicted.push_back(trial.predicted_s);
      measured.push_back(*trial.measured_s);
    }
  if (measured.size() < 3) return nullptr;
  const double correlation = results::rank_correlation(predicted, measured);
  return std::isfinite(correlation) ? json(correlation) : json(nullptr);
}

json plan_json(Plan plan) {
  std::stable_sort(plan.trials.begin(), plan.trials.end(),
                   [](const Trial& a, const Trial& b) { return a.predicted_s < b.predicted_s; });
  json trials = json::array();
  size_t measured = 0;
  for (const Trial& trial : plan.trials) {
    measured += trial.measured_s ? 1 : 0;
    trials.push_back({{"run", trial.run},
                      {"predicted_s", trial.predicted_s},
                      {"measured_s", trial.measured_s ? json(*trial.measured_s) : json(nullptr)}});
  }
  return {{"experiment", plan.experiment},
          {"trials", std::move(trials)},
          {"measured", measured},
          {"rank_correlation", correlation_json(plan.trials)}};
}

}  // namespace

json plans_json(const std::vector<results::RunRecord>& runs, const RunChoice& choice) {
  json plans = json::array();
  for (Plan& plan : plans_of(runs, choice)) plans.push_back(plan_json(std::move(plan)));
  return plans;
}

}  // namespace runner::report::html
