// The time one rank spent blocked waiting for its collectives to finish: all of a blocking
// call, and the part of a started one that its wait() did not hide behind other work. Every
// communicator of the rank (its sub-groups too) adds to the same clock; the engine reads it at
// each epoch's start and end. Gloo's waits block the host and are timed by its clock; NCCL's
// wait() only makes the GPU's stream wait, so its waits are timed on that stream (StreamStall)
// and read when the clock is.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace runner::distributed {

// One wait timed on a GPU stream: marked before the wait and, by end(), after it.
class StreamStall {
 public:
  virtual ~StreamStall() = default;
  virtual void end() = 0;
  // The stream's time between the two marks; blocks until the stream has passed the second.
  virtual double seconds() = 0;
};

class WaitClock {
 public:
  void add(std::chrono::steady_clock::duration waited) {
    nanoseconds_.fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(waited).count(),
                           std::memory_order_relaxed);
  }

  // An ended stall, counted at the next seconds() (or sooner, once kMaxUnread wait).
  void add_later(std::unique_ptr<StreamStall> stall) {
    const std::lock_guard<std::mutex> lock(unread_mutex_);
    unread_.push_back(std::move(stall));
    if (unread_.size() >= kMaxUnread) read_unread();
  }

  double seconds() const {
    {
      const std::lock_guard<std::mutex> lock(unread_mutex_);
      read_unread();
    }
    return static_cast<double>(nanoseconds_.load(std::memory_order_relaxed)) * 1e-9;
  }

  // Stalls kept unread at most: a long epoch's marks, read before they pile up.
  static constexpr size_t kMaxUnread = 4096;

 private:
  // Called with unread_mutex_ held.
  void read_unread() const {
    for (const auto& stall : unread_)
      nanoseconds_.fetch_add(static_cast<int64_t>(stall->seconds() * 1e9),
                             std::memory_order_relaxed);
    unread_.clear();
  }

  mutable std::atomic<int64_t> nanoseconds_{0};
  mutable std::mutex unread_mutex_;
  mutable std::vector<std::unique_ptr<StreamStall>> unread_;
};

}  // namespace runner::distributed
