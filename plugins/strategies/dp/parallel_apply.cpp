// parallel_apply: one thread per device with the caller's thread state, failures rethrown after.
#include "parallel_apply.hpp"

#include <ATen/ThreadLocalState.h>
#include <c10/core/DeviceGuard.h>

#include <exception>
#include <runner/errors.hpp>
#include <string>
#include <system_error>
#include <thread>

namespace runner::strategies {

void parallel_apply(const std::vector<torch::Device>& devices, size_t count,
                    const std::function<void(size_t)>& work) {
  RUNNER_CHECK(count >= 1 && count <= devices.size(), "one piece of work per device");
  // Grad mode, inference mode and autocast are thread-local: a new thread starts without the
  // caller's, so an eval forward would build a graph and a training one under autocast
  // would run in float32.
  const at::ThreadLocalState caller_state;
  std::vector<std::exception_ptr> failures(count);
  auto run = [&](size_t i) {
    try {
      at::ThreadLocalStateGuard state(caller_state);
      c10::DeviceGuard device(devices[i]);
      work(i);
    } catch (...) {
      failures[i] = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  try {
    for (size_t i = 1; i < count; ++i) threads.emplace_back(run, i);
  } catch (const std::system_error& e) {
    // Destroyed unjoined, a started thread would end the process by std::terminate.
    for (auto& thread : threads) thread.join();
    throw RunError("dp: cannot start a thread for each of " + std::to_string(count) +
                       " devices: " + e.code().message() + " (see ulimit -u)",
                   "raise the limit of processes and threads (ulimit -u)");
  }
  run(0);
  for (auto& thread : threads) thread.join();
  for (const auto& failure : failures)
    if (failure) std::rethrow_exception(failure);
}

}  // namespace runner::strategies
