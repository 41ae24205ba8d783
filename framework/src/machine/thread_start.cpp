// Threads started as a probe, each waiting until all are up, so they count against the limit
// together as a pool's would.
#include "machine/thread_start.hpp"

#include <sys/resource.h>

#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace runner::machine {
namespace {

// "2", or "unlimited".
std::string process_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NPROC, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return "unlimited";
  return std::to_string(limit.rlim_cur);
}

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
      problem = "cannot start " + std::to_string(beside) +
                " threads beside this one: " + e.code().message() + "; this user may run " +
                process_limit() + " processes and threads (ulimit -u)";
    }
  }
  gate.open();
  for (auto& thread : started) thread.join();
  return problem;
}

}  // namespace runner::machine
