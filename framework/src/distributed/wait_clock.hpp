// The time one rank spent blocked waiting for its collectives to finish: all of a blocking
// call, and the part of a started one that its wait() did not hide behind other work. Every
// communicator of the rank (its sub-groups too) adds to the same clock; the engine reads it at
// each epoch's start and end.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace runner::distributed {

class WaitClock {
 public:
  void add(std::chrono::steady_clock::duration waited) {
    nanoseconds_.fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(waited).count(),
                           std::memory_order_relaxed);
  }
  double seconds() const {
    return static_cast<double>(nanoseconds_.load(std::memory_order_relaxed)) * 1e-9;
  }

 private:
  std::atomic<int64_t> nanoseconds_{0};
};

}  // namespace runner::distributed
