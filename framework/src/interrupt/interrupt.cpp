// SIGINT, SIGTERM and SIGHUP during training: caught, and waits made interruptible; SIGPIPE
// and SIGXFSZ ignored.
#include "interrupt/interrupt.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "runner/errors.hpp"

namespace runner {
namespace {

volatile std::sig_atomic_t received = 0;

void on_signal(int signal) { received = signal; }

}  // namespace

void install_interrupt_handlers() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  // Under nohup SIGHUP is ignored, and a closed terminal must not stop the run then.
  struct sigaction hangup {};
  sigaction(SIGHUP, nullptr, &hangup);
  if (hangup.sa_handler != SIG_IGN) std::signal(SIGHUP, on_signal);
}

void ignore_closed_outputs() { std::signal(SIGPIPE, SIG_IGN); }

void ignore_file_size_limit() { std::signal(SIGXFSZ, SIG_IGN); }

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
      watcher_("interrupt watcher", std::chrono::milliseconds(50), FirstTick::at_once,
               [this] { return watch(); }) {}

// The waiting thread cannot be woken: this one records the run and ends the process.
bool InterruptibleWait::watch() {
  const int signal = received;
  if (!signal) return true;
  const auto now = std::chrono::steady_clock::now();
  if (!signal_seen_) signal_seen_ = now;
  if (now - *signal_seen_ < grace_) return true;
  const std::string error = "interrupted by signal " + std::to_string(signal);
  if (record_) record_(error);
  std::fprintf(stderr, "runner: error: %s%s while waiting for the other ranks\n", prefix_.c_str(),
               error.c_str());
  std::fflush(nullptr);
  std::_Exit(128 + signal);
}

}  // namespace runner
