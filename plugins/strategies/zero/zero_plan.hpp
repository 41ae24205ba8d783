// The run plan of `zero`: what each rank holds at its peak, by stage.
#pragma once

#include <runner/plan.hpp>

namespace runner::strategies {

RunPlan plan_zero(const Options& options, const PlanInput& input);

}  // namespace runner::strategies
