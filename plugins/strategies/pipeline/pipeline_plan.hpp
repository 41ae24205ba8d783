// The run plan of `pipeline`: each stage's layers, their weights and the activations of the
// micro-batches its schedule keeps in flight.
#pragma once

#include <runner/plan.hpp>

namespace runner::strategies {

RunPlan plan_pipeline(const Options& options, const PlanInput& input);

}  // namespace runner::strategies
