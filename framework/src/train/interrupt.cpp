// SIGINT and SIGTERM during training: caught, and waits made interruptible.
#include "train/interrupt.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "runner/errors.hpp"

namespace runner::train {
namespace {

volatile std::sig_atomic_t received = 0;

void on_signal(int signal) { received = signal; }

}  // namespace

void install_interrupt_handlers() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}

int interrupt_signal() { return received; }

void stop_if_interrupted() {
  if (received)
    throw RunError("interrupted by signal " + std::to_string(received),
                   "the epochs finished before it are in the results file");
}

InterruptibleWait::InterruptibleWait(std::string prefix, Record record,
                                     std::chrono::milliseconds grace)
    : prefix_(std::move(prefix)),
      record_(std::move(record)),
      grace_(grace),
      watcher_([this] { watch(); }) {}

InterruptibleWait::~InterruptibleWait() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  done_changed_.notify_one();
  watcher_.join();
}

// The waiting thread cannot be woken: this one records the run and ends the process.
void InterruptibleWait::watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  std::optional<std::chrono::steady_clock::time_point> seen;
  while (!done_) {
    const int signal = received;
    if (signal && !seen) seen = std::chrono::steady_clock::now();
    if (signal && std::chrono::steady_clock::now() - *seen >= grace_) {
      const std::string error = "interrupted by signal " + std::to_string(signal);
      if (record_) record_(error);
      std::fprintf(stderr, "runner: error: %s%s while waiting for the other ranks\n",
                   prefix_.c_str(), error.c_str());
      std::fflush(nullptr);
      std::_Exit(128 + signal);
    }
    done_changed_.wait_for(lock, std::chrono::milliseconds(50));
  }
}

}  // namespace runner::train
