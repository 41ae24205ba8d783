// plan_tensor: a replica of the model's estimate split by the degree, plus the averaging copy.
#include "tensor_plan.hpp"

#include <runner/errors.hpp>
#include <runner/strategies/replica_plan.hpp>

#include <algorithm>
#include <optional>

#include "tensor_strategy.hpp"

namespace runner::strategies {
namespace {

constexpr double kFp32 = 4;

void check_split(const ModelEstimate& model, const std::optional<SplitEstimate>& split,
                 int degree) {
  if (!split)
    throw ConfigError("strategy tensor: the model does not say how it splits over ranks",
                      "use a model that supports tensor parallelism, such as gpt2");
  if (split->layers.size() != model.layers.size())
    throw ConfigError("strategy tensor: the model's split lists " +
                          std::to_string(split->layers.size()) + " layers, its estimate " +
                          std::to_string(model.layers.size()),
                      "the model's SplitEstimator must list one LayerSplit per layer");
  for (const auto& [key, size] : split->divisors)
    if (size % degree != 0)
      throw ConfigError("strategy.degree = " + std::to_string(degree) +
                            " does not divide the "
                            "model's " +
                            key + " = " + std::to_string(size),
                        "choose a degree that divides " + key);
}

}  // namespace

ModelEstimate split_estimate(const ModelEstimate& model, const std::optional<SplitEstimate>& split,
                             int degree) {
  check_split(model, split, degree);
  const auto t = static_cast<double>(degree);
  ModelEstimate rank = model;
  for (size_t i = 0; i < rank.layers.size(); ++i) {
    const LayerSplit& part = split->layers[i];
    const int64_t removed = part.parameters - part.parameters / degree;
    rank.parameters -= removed;
    rank.layers[i].parameters -= removed;
    rank.layers[i].held_bytes -= part.held_bytes * (1 - 1 / t);
  }
  return rank;
}

// A replica with the split model per rank, and the flat copy the replicas' gradients are
// averaged in when there is more than one group.
RunPlan plan_tensor(const Options& options, const PlanInput& input) {
  const int t = TensorOptions::from(options).degree;
  const int ranks = std::max(1, input.world_size);
  if (ranks % t != 0)
    throw ConfigError("strategy.degree = " + std::to_string(t) + " does not divide the " +
                          std::to_string(ranks) + " ranks into tensor-parallel groups",
                      "set strategy.world_size to a multiple of strategy.degree");
  PlanInput split = input;
  split.model = split_estimate(input.model, input.tensor_split, t);
  const int groups = ranks / t;
  const double averaging = groups > 1 ? kFp32 * static_cast<double>(split.model.parameters) : 0;
  return replicated_plan(split, groups, ranks, averaging,
                         std::to_string(t) + "-way tensor parallel x " + std::to_string(groups) +
                             " replica" + (groups == 1 ? "" : "s") +
                             "; embeddings, head and LayerNorms whole on every rank");
}

}  // namespace runner::strategies
