// The passes of an epoch over a split: the training steps (with their losses averaged over
// the reporting ranks at each log point) and the test steps, their batches made by loader
// threads.
#pragma once

#include <functional>
#include <vector>

#include "train/session.hpp"

namespace runner::train {

struct TrainPass {
  PassMetrics metrics;
  std::vector<results::StepRecord> steps;
  double data_wait_s = 0, compute_s = 0;
  int64_t skipped_steps = 0;
  double loss_scale = 0;
};

// Checkpoints inside a training pass: after a step, whether one is due, and the save of the
// pass so far (its losses reduced up to that step).
struct PassCheckpoints {
  std::function<bool()> due;
  std::function<void(const TrainPass& pass, int64_t steps_done)> save;
};

// `pass` holds the steps before `first_step` (0-based) when the epoch resumes mid-way.
TrainPass train_epoch(Session& s, int64_t epoch, TrainPass pass, int64_t first_step = 0,
                      const PassCheckpoints& checkpoints = {});
// An empty pass of the session's task.
TrainPass empty_pass(const Session& s);
// This rank's sums; data_wait_s grows by the time spent waiting for batches.
PassMetrics test_epoch(Session& s, int64_t epoch, double& data_wait_s);

// RunError when `loss` is not finite.
void check_finite(double loss, const Session& s, int64_t epoch);

}  // namespace runner::train
