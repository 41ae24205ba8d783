// A trial's measured step and Spearman's rank correlation of predicted against measured.
#include "results/plan_trials.hpp"

#include "runner/errors.hpp"

#include <algorithm>
#include <cmath>

namespace runner::results {

std::optional<double> measured_step_s(const RunRecord& run) {
  if (run.status != Status::completed || run.steps.empty()) return std::nullopt;
  std::vector<double> steps;
  for (size_t i = run.steps.size() > 1 ? 1 : 0; i < run.steps.size(); ++i)
    steps.push_back(run.steps[i].duration_s);
  std::sort(steps.begin(), steps.end());
  const size_t n = steps.size();
  return n % 2 ? steps[n / 2] : (steps[n / 2 - 1] + steps[n / 2]) / 2;
}

namespace {

// 1-based ranks, ties at their mean.
std::vector<double> ranks_of(const std::vector<double>& values) {
  std::vector<size_t> order(values.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return values[x] < values[y]; });
  std::vector<double> ranks(values.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    for (size_t k = i; k <= j; ++k) ranks[order[k]] = (static_cast<double>(i + j) + 2) / 2;
    i = j + 1;
  }
  return ranks;
}

}  // namespace

double rank_correlation(const std::vector<double>& a, const std::vector<double>& b) {
  RUNNER_CHECK(a.size() == b.size(), "series of different lengths");
  const size_t n = a.size();
  if (n < 2) return std::nan("");
  const std::vector<double> x = ranks_of(a), y = ranks_of(b);
  const double mean = (static_cast<double>(n) + 1) / 2;  // of ranks 1..n, ties included
  double xy = 0, xx = 0, yy = 0;
  for (size_t i = 0; i < n; ++i) {
    xy += (x[i] - mean) * (y[i] - mean);
    xx += (x[i] - mean) * (x[i] - mean);
    yy += (y[i] - mean) * (y[i] - mean);
  }
  return xx > 0 && yy > 0 ? xy / std::sqrt(xx * yy) : std::nan("");
}

}  // namespace runner::results
