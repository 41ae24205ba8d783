// The run plan of `tensor`: each rank a replica of the model with its split layers' parameters,
// gradients, optimizer state and activations divided by the degree.
#pragma once

#include <optional>
#include <runner/plan.hpp>

namespace runner::strategies {

// The model as one rank of a tensor-parallel group of `degree` ranks holds it: each layer's
// split parameters and held bytes (`split`, the model's SplitEstimator) divided by the degree.
// Throws a ConfigError naming the size the degree does not divide, or saying the model has no
// split.
ModelEstimate split_estimate(const ModelEstimate& model, const std::optional<SplitEstimate>& split,
                             int degree);

RunPlan plan_tensor(const Options& options, const PlanInput& input);

}  // namespace runner::strategies
