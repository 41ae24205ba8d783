// step_series: every step of a short run, buckets of a long one.
#include "report/html/step_series.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace runner::report::html {

namespace {

using results::StepRecord;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The mean, least and most of one field of steps [begin, end), NaN left out.
struct Spread {
  double mean = kNaN, low = kNaN, high = kNaN;
};

Spread spread_of(const std::vector<StepRecord>& steps, size_t begin, size_t end,
                 double StepRecord::*field) {
  Spread spread;
  double sum = 0;
  size_t counted = 0;
  for (size_t i = begin; i < end; ++i) {
    const double value = steps[i].*field;
    if (std::isnan(value)) continue;
    spread.low = counted == 0 ? value : std::min(spread.low, value);
    spread.high = counted == 0 ? value : std::max(spread.high, value);
    sum += value;
    ++counted;
  }
  if (counted > 0) spread.mean = sum / static_cast<double>(counted);
  return spread;
}

void append_step(StepSeries& series, const StepRecord& step) {
  series.step.push_back(step.step);
  series.loss.push_back(step.loss);
  series.loss_low.push_back(step.loss);
  series.loss_high.push_back(step.loss);
  series.duration_s.push_back(step.duration_s);
}

void append_bucket(StepSeries& series, const std::vector<StepRecord>& steps, size_t begin,
                   size_t end) {
  const Spread loss = spread_of(steps, begin, end, &StepRecord::loss);
  series.step.push_back(steps[end - 1].step);
  series.loss.push_back(loss.mean);
  series.loss_low.push_back(loss.low);
  series.loss_high.push_back(loss.high);
  series.duration_s.push_back(spread_of(steps, begin, end, &StepRecord::duration_s).mean);
}

}  // namespace

StepSeries step_series(const std::vector<StepRecord>& steps) {
  StepSeries series;
  series.count = steps.size();
  if (steps.size() <= kWholeStepsLimit) {
    for (const StepRecord& step : steps) append_step(series, step);
    return series;
  }
  for (size_t bucket = 0; bucket < kStepBuckets; ++bucket)
    append_bucket(series, steps, bucket * steps.size() / kStepBuckets,
                  (bucket + 1) * steps.size() / kStepBuckets);
  return series;
}

}  // namespace runner::report::html
