// Ctrl-C (SIGINT) or SIGTERM during training: the step in flight finishes, the run is recorded
// as failed ("interrupted"), the sweep stops, and runner exits with 128 + the signal number.
#pragma once

namespace runner::engine {

void install_interrupt_handlers();
// The signal that asked to stop, or 0.
int interrupt_signal();
// Throws an Interrupted error when a signal asked to stop.
void stop_if_interrupted();

}  // namespace runner::engine
