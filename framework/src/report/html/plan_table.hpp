// The page's table of `runner plan`'s trials: each layout the plan tried, its predicted step
// beside the measured one, and how well the predictions ordered the trials.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "report/html/run_choice.hpp"
#include "results/results.hpp"

namespace runner::report::html {

// One entry per experiment of the file whose runs include plan trials (runs with
// [experiment] plan_step_s), in the order of their first trial: its trials, one per sweep
// point (the point's result, else its latest run), fastest predicted first, and the rank
// correlation of predicted and measured steps over the measured trials (null for fewer
// than 3, as `runner plan` prints it from 3).
nlohmann::json plans_json(const std::vector<results::RunRecord>& runs, const RunChoice& choice);

}  // namespace runner::report::html
