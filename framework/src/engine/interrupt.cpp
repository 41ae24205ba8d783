#include "engine/interrupt.hpp"

#include <csignal>
#include <string>

#include "runner/errors.hpp"

namespace runner::engine {
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

}  // namespace runner::engine
