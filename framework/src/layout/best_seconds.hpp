// The timing of the calibration's measurements: the best of a few calls.
#pragma once

#include <algorithm>
#include <chrono>

namespace runner::layout {

// The best of three timed calls after one to warm up; `sync` waits for the device.
template <typename Call, typename Sync>
double best_seconds(const Call& call, const Sync& sync) {
  using Clock = std::chrono::steady_clock;
  call();
  sync();
  double best = 1e30;
  for (int i = 0; i < 3; ++i) {
    const auto start = Clock::now();
    call();
    sync();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
  }
  return best;
}

}  // namespace runner::layout
