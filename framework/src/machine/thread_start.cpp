// Threads started as a probe, each waiting until all are up, so they count against the limit
// together as a pool's would.
#include "machine/thread_start.hpp"

#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "common/started_threads.hpp"

namespace runner::machine {
namespace {

class Gate {
 public:
  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    opened_.wait(lock, [this] { return open_; });
  }
  void open() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      open_ = true;
    }
    opened_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable opened_;
  bool open_ = false;
};

}  // namespace

std::optional<std::string> thread_start_problem(int beside) {
  Gate gate;
  std::vector<std::thread> started;
  std::optional<std::string> problem;
  for (int i = 0; i < beside && !problem; ++i) {
    try {
      started.emplace_back([&gate] { gate.wait(); });
    } catch (const std::system_error& e) {
      problem = thread_refusal(std::to_string(beside) + " threads beside this one", e);
    }
  }
  gate.open();
  for (auto& thread : started) thread.join();
  return problem;
}

}  // namespace runner::machine
