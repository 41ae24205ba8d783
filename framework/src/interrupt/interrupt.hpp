// Ctrl-C (SIGINT), SIGTERM or SIGHUP (a closed terminal) during training: the step in flight
// finishes, the run is recorded as failed ("interrupted"), the sweep stops, and runner exits
// with 128 + the signal number. A closed stdout or stderr does not stop anything.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "common/periodic_thread.hpp"

namespace runner {

// SIGHUP is left ignored where it was (nohup).
void install_interrupt_handlers();
// A reader of stdout or stderr that went away (`runner exp.toml | head -1`) must not end the
// training: writes to it fail with EPIPE instead of raising SIGPIPE, and the streams drop them.
void ignore_closed_outputs();
// A file-size limit (`ulimit -f`) must not kill the run unrecorded: a write past it fails with
// EFBIG instead of raising SIGXFSZ, and the writer names the file, the run marked failed.
void ignore_file_size_limit();
// The signal that asked to stop, or 0.
int interrupt_signal();
// Throws an Interrupted error when a signal asked to stop.
void stop_if_interrupted();

// A wait that c10d ends only at its timeout (a rendezvous, a connection to the store, a
// collective whose peer stopped): while one lives, a SIGINT or SIGTERM still pending `grace`
// later ends the process within a tenth of a second more, with exit code 128 + the signal,
// after `record` has recorded the run as interrupted and the error line is printed (prefixed
// by `prefix`, "rank 1: "). Within the grace the waiting thread may stop on its own.
class InterruptibleWait {
 public:
  using Record = std::function<void(const std::string& error)>;
  InterruptibleWait(std::string prefix, Record record,
                    std::chrono::milliseconds grace = std::chrono::milliseconds(0));
  InterruptibleWait(const InterruptibleWait&) = delete;
  InterruptibleWait& operator=(const InterruptibleWait&) = delete;

 private:
  bool watch();

  std::string prefix_;
  Record record_;
  std::chrono::milliseconds grace_;
  std::optional<std::chrono::steady_clock::time_point> signal_seen_;  // the watcher's own
  PeriodicThread watcher_;
};

}  // namespace runner
