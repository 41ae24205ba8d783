// The GPipe and 1F1B action lists, the most micro-batches in flight, and the simulated bubble.
#include "schedule.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace runner::strategies {

StageSchedule gpipe_schedule(int stage, int stages, int micro_batches) {
  (void)stage, (void)stages;
  StageSchedule schedule;
  for (int i = 0; i < micro_batches; ++i) schedule.push_back({PipelineAction::forward, i});
  for (int i = micro_batches; i-- > 0;) schedule.push_back({PipelineAction::backward, i});
  return schedule;
}

StageSchedule one_f_one_b_schedule(int stage, int stages, int micro_batches) {
  const int warmup = std::min(stages - stage - 1, micro_batches);
  StageSchedule schedule;
  int next_forward = 0, next_backward = 0;
  for (; next_forward < warmup; ++next_forward)
    schedule.push_back({PipelineAction::forward, next_forward});
  while (next_forward < micro_batches) {
    schedule.push_back({PipelineAction::forward, next_forward++});
    schedule.push_back({PipelineAction::backward, next_backward++});
  }
  while (next_backward < micro_batches)
    schedule.push_back({PipelineAction::backward, next_backward++});
  return schedule;
}

StageSchedule schedule_named(const std::string& name, int stage, int stages, int micro_batches) {
  if (name == "gpipe") return gpipe_schedule(stage, stages, micro_batches);
  if (name == "1f1b") return one_f_one_b_schedule(stage, stages, micro_batches);
  throw std::invalid_argument("no pipeline schedule named '" + name + "'");
}

int most_in_flight(const StageSchedule& schedule) {
  int in_flight = 0, most = 0;
  for (const auto& action : schedule) {
    in_flight += action.kind == PipelineAction::forward ? 1 : -1;
    most = std::max(most, in_flight);
  }
  return most;
}

// Each action starts when its stage is free and its input has arrived: a forward's from the
// previous stage's forward of that micro-batch, a backward's from the next stage's backward.
double simulated_bubble_fraction(const std::vector<StageSchedule>& stages, double forward,
                                 double backward) {
  const int k = static_cast<int>(stages.size());
  std::map<std::pair<int, int>, double> forward_done, backward_done;  // (stage, micro) -> time
  std::vector<size_t> next(static_cast<size_t>(k), 0);
  std::vector<double> free_at(static_cast<size_t>(k), 0.0);
  double busy = 0;
  for (bool progressed = true; progressed;) {
    progressed = false;
    for (int s = 0; s < k; ++s) {
      auto& at = next[static_cast<size_t>(s)];
      if (at == stages[static_cast<size_t>(s)].size()) continue;
      const PipelineAction a = stages[static_cast<size_t>(s)][at];
      const bool is_forward = a.kind == PipelineAction::forward;
      double ready = free_at[static_cast<size_t>(s)];
      if (is_forward && s > 0) {
        auto input = forward_done.find({s - 1, a.micro_batch});
        if (input == forward_done.end()) continue;
        ready = std::max(ready, input->second);
      }
      if (!is_forward && s < k - 1) {
        auto input = backward_done.find({s + 1, a.micro_batch});
        if (input == backward_done.end()) continue;
        ready = std::max(ready, input->second);
      }
      const double cost = is_forward ? forward : backward;
      free_at[static_cast<size_t>(s)] = ready + cost;
      (is_forward ? forward_done : backward_done)[{s, a.micro_batch}] = ready + cost;
      busy += cost;
      ++at;
      progressed = true;
    }
  }
  for (int s = 0; s < k; ++s)
    if (next[static_cast<size_t>(s)] != stages[static_cast<size_t>(s)].size())
      throw std::logic_error("the schedules deadlock");
  const double span = *std::max_element(free_at.begin(), free_at.end());
  return 1.0 - busy / (span * k);
}

}  // namespace runner::strategies
