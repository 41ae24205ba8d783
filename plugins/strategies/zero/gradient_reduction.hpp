// When each unit's gradients are reduced: as backward completes them (a hook after each
// parameter's gradient accumulated), in one fixed order of units so that every rank issues
// the same collectives in the same order, overlapped with the rest of backward. At most
// two reductions are in flight: each holds a bucket of whole gradients until it finishes.
#pragma once

#include <torch/csrc/autograd/function.h>

#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include <runner/strategies/sharded_unit.hpp>

namespace runner::strategies {

class GradientReduction {
 public:
  // `order`: the units in the order their reductions start (about the order backward
  // completes them). `completed` runs as a unit's last gradient is taken (stage 3 frees its
  // gathered parameters there).
  GradientReduction(std::vector<ShardedUnit*> order, bool overlap,
                    std::function<void(ShardedUnit&)> completed = {});

  // Before a backward whose gradients are reduced: none taken yet. Outside
  // arm()..finish() backward leaves the gradients where it accumulates them.
  void arm();
  // After that backward: the gradients backward did not reach count as zero, the remaining
  // reductions start, and every unit's master holds its part of the mean.
  void finish();

 private:
  void gradient_accumulated(ShardedUnit& unit, size_t index);
  void start_ready();
  void start(ShardedUnit& unit);

  std::vector<ShardedUnit*> order_;
  bool overlap_;
  std::function<void(ShardedUnit&)> completed_;
  // The parameters' gradient accumulators, kept alive so that the hooks stay on them.
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators_;
  size_t next_to_start_ = 0;
  std::deque<ShardedUnit*> in_flight_;  // started, not yet finished, oldest first
  bool armed_ = false;
};

}  // namespace runner::strategies
