// A background thread that does one thing every period until it is told to stop: the
// heartbeat of a rank, the GPU's readings, the watch for a signal during a blocking wait.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "common/started_threads.hpp"

namespace runner {

enum class FirstTick { at_once, after_a_period };

// Calls `tick` every `period` (the first time at once or after a period) until `tick` returns
// false or the object is destroyed. A thread the system refuses is a RunError naming `what`
// ("heartbeat"). Destruction wakes the thread at once and joins it: declare
// a PeriodicThread after the members its tick uses, so that it stops before they go.
class PeriodicThread {
 public:
  PeriodicThread(const std::string& what, std::chrono::milliseconds period, FirstTick first,
                 std::function<bool()> tick)
      : period_(period),
        tick_(std::move(tick)),
        thread_(started_thread(what, [this, first] { loop(first); })) {}

  ~PeriodicThread() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    stop_requested_.notify_all();
    thread_.join();
  }

  PeriodicThread(const PeriodicThread&) = delete;
  PeriodicThread& operator=(const PeriodicThread&) = delete;

 private:
  // The tick runs unlocked, so that destruction never waits on the lock behind a slow tick.
  void loop(FirstTick first) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (first == FirstTick::after_a_period && wait_a_period(lock)) return;
    do {
      lock.unlock();
      const bool more = tick_();
      lock.lock();
      if (!more) return;
    } while (!wait_a_period(lock));
  }

  // True when asked to stop.
  bool wait_a_period(std::unique_lock<std::mutex>& lock) {
    return stop_requested_.wait_for(lock, period_, [this] { return stopping_; });
  }

  std::chrono::milliseconds period_;
  std::function<bool()> tick_;
  std::mutex mutex_;
  std::condition_variable stop_requested_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace runner
