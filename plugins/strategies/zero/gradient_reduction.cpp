// GradientReduction: starts each unit's reduction once its gradients are all in, in fixed order.
#include "gradient_reduction.hpp"

#include <torch/csrc/autograd/utils/lambda_post_hook.h>
#include <torch/csrc/autograd/variable.h>

namespace runner::strategies {

GradientReduction::GradientReduction(std::vector<ShardedUnit*> order, bool overlap,
                                     std::function<void(ShardedUnit&)> completed)
    : order_(std::move(order)), overlap_(overlap), completed_(std::move(completed)) {
  using torch::autograd::variable_list;
  for (ShardedUnit* unit : order_)
    for (size_t i = 0; i < unit->parameters().size(); ++i) {
      auto accumulator = torch::autograd::impl::grad_accumulator(unit->parameters()[i]);
      accumulator->add_post_hook(std::make_unique<torch::autograd::utils::LambdaPostHook>(
          [this, unit, i](const variable_list& outputs, const variable_list&) {
            gradient_accumulated(*unit, i);
            return outputs;
          }));
      accumulators_.push_back(std::move(accumulator));
    }
}

void GradientReduction::arm() {
  for (ShardedUnit* unit : order_) unit->forget_gradients();
  next_to_start_ = 0;
  armed_ = true;
}

void GradientReduction::gradient_accumulated(ShardedUnit& unit, size_t index) {
  if (!armed_) return;
  unit.take_gradient(index);
  if (!unit.every_gradient_taken()) return;
  if (completed_) completed_(unit);
  if (overlap_) start_ready();
}

void GradientReduction::start_ready() {
  while (next_to_start_ < order_.size() && order_[next_to_start_]->every_gradient_taken())
    start(*order_[next_to_start_++]);
}

void GradientReduction::start(ShardedUnit& unit) {
  constexpr size_t kMostInFlight = 2;
  if (in_flight_.size() >= kMostInFlight) {
    in_flight_.front()->finish_reduction();
    in_flight_.pop_front();
  }
  unit.start_reduction();
  in_flight_.push_back(&unit);
}

void GradientReduction::finish() {
  for (ShardedUnit* unit : order_)
    if (!unit->every_gradient_taken()) {
      unit->take_missing_gradients();
      if (completed_) completed_(*unit);
    }
  start_ready();
  armed_ = false;
  for (ShardedUnit* unit : in_flight_) unit->finish_reduction();
  in_flight_.clear();
}

}  // namespace runner::strategies
