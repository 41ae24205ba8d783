// Pipeline schedules as pure lists of actions: what one stage does, in order, for one step of
// m micro-batches over k stages. A forward of micro-batch i on stage s > 0 first receives its
// input from s - 1, and on s < k - 1 sends its output to s + 1; a backward receives its output's
// gradient from s + 1 (unless last) and sends its input's gradient to s - 1 (unless first).
#pragma once

#include <string>
#include <vector>

namespace runner::strategies {

struct PipelineAction {
  enum Kind { forward, backward } kind;
  int micro_batch;
  bool operator==(const PipelineAction& o) const {
    return kind == o.kind && micro_batch == o.micro_batch;
  }
};

using StageSchedule = std::vector<PipelineAction>;

// GPipe: every micro-batch's forward, then every backward (the last micro-batch's first).
StageSchedule gpipe_schedule(int stage, int stages, int micro_batches);
// 1F1B (PipeDream-Flush): k - s - 1 forwards to fill the pipeline, then one forward and one
// backward in turn, then the remaining backwards. A stage keeps at most k - s micro-batches'
// activations, not m.
StageSchedule one_f_one_b_schedule(int stage, int stages, int micro_batches);
StageSchedule schedule_named(const std::string& name, int stage, int stages, int micro_batches);

// The most micro-batches whose forward has run and backward has not, at any point.
int most_in_flight(const StageSchedule& schedule);

// The fraction of a step that stages spend waiting, when every stage runs the schedules with
// a forward taking `forward` and a backward `backward` time units and messages taking none:
// (k - 1) / (m + k - 1) for GPipe and 1F1B alike.
double simulated_bubble_fraction(const std::vector<StageSchedule>& stages, double forward,
                                 double backward);

}  // namespace runner::strategies
