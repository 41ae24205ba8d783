// What a results file says of `runner plan`'s trials: a trial's measured step, and how well the
// plan's predictions ordered the trials. Read by the plan itself and by the HTML report.
#pragma once

#include <optional>
#include <vector>

#include "results/results.hpp"

namespace runner::results {

// The median step of a finished run after its first (the first alone when it ran one); none
// when the run did not complete or logged no step.
std::optional<double> measured_step_s(const RunRecord& run);

// Spearman's rank correlation of two equally long series (ties take their mean rank): 1 when
// one orders the items as the other does, -1 when reversed. NaN for fewer than 2 items or a
// series of one value.
double rank_correlation(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace runner::results
