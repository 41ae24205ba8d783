// Threads started so that a refusal of the system (ulimit -u, no memory for a stack) is one
// line naming the threads and the limit, never std::terminate: a std::thread destroyed
// unjoined, as a vector of started workers is when a later one fails, ends the process.
#pragma once

#include <sys/resource.h>

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "runner/errors.hpp"

namespace runner {

// "cannot start 4 data loader threads: Resource temporarily unavailable; this user may run 2
// processes and threads (ulimit -u)".
inline std::string thread_refusal(const std::string& threads, const std::system_error& e) {
  rlimit limit{};
  const std::string most = getrlimit(RLIMIT_NPROC, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY
                               ? "unlimited"
                               : std::to_string(limit.rlim_cur);
  return "cannot start " + threads + ": " + e.code().message() + "; this user may run " + most +
         " processes and threads (ulimit -u)";
}

inline RunError thread_refused(const std::string& threads, const std::system_error& e) {
  return RunError(thread_refusal(threads, e),
                  "raise the limit (ulimit -u), or ask for fewer threads");
}

// One thread running `body`; the refusal as RunError ("a checkpoint writer thread").
template <typename Body>
std::thread started_thread(const std::string& what, Body&& body) {
  try {
    return std::thread(std::forward<Body>(body));
  } catch (const std::system_error& e) {
    throw thread_refused("a " + what + " thread", e);
  }
}

// Starts `count` threads into `threads`, thread i running body(i) once all have started; where
// the system refuses one, those started end without running it, are joined, and RunError
// names the count ("4 data loader threads"). All or none: a thread of a pair of ranks that
// could not start would leave the other waiting for it.
inline void start_threads(std::vector<std::thread>& threads, int64_t count, const std::string& what,
                          const std::function<void(int64_t)>& body) {
  struct Start {
    std::mutex mutex;
    std::condition_variable decided;
    bool known = false;
    bool go = false;
  };
  const auto start = std::make_shared<Start>();
  const auto decide = [&start](bool go) {
    {
      std::lock_guard<std::mutex> lock(start->mutex);
      start->known = true;
      start->go = go;
    }
    start->decided.notify_all();
  };
  for (int64_t i = 0; i < count; ++i) {
    try {
      threads.emplace_back([start, body, i] {
        {
          std::unique_lock<std::mutex> lock(start->mutex);
          start->decided.wait(lock, [&start] { return start->known; });
          if (!start->go) return;
        }
        body(i);
      });
    } catch (const std::system_error& e) {
      decide(false);
      for (auto& thread : threads) thread.join();
      threads.clear();
      throw thread_refused(std::to_string(count) + " " + what + " threads", e);
    }
  }
  decide(true);
}

}  // namespace runner
