// A run's training loss per step as the page draws it: every step of a short run, buckets of
// consecutive steps (their mean, least and most loss) of a long one, so a page of 500 runs of a
// million steps each stays small and draws fast.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "results/results.hpp"

namespace runner::report::html {

// Runs of up to this many steps keep every step.
inline constexpr size_t kWholeStepsLimit = 500;
// Longer runs become this many buckets.
inline constexpr size_t kStepBuckets = 250;

struct StepSeries {
  size_t count = 0;           // the steps the file holds for the run
  std::vector<int64_t> step;  // a bucket's last step: the series reaches the data's end
  std::vector<double> loss;   // a bucket's mean
  std::vector<double> loss_low, loss_high;  // a bucket's least and most; a step's own loss
  std::vector<double> duration_s;           // a bucket's mean
};

// Bucket i holds steps [i * n / kStepBuckets, (i + 1) * n / kStepBuckets) of the n steps. A
// diverged run's NaN losses are left out of a bucket's numbers; a bucket of NaN only is NaN.
StepSeries step_series(const std::vector<results::StepRecord>& steps);

}  // namespace runner::report::html
