// The child processes of one launch: fork + exec, signals, and reaping without blocking.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ranks/process_launcher.hpp"

namespace runner::ranks {

// What one rank runs: its argv and its whole environment as "KEY=value".
struct RankCommand {
  std::vector<std::string> argv;
  std::vector<std::string> env;
};

// The ranks started and not reaped yet. Only these pids are ever signalled: a reaped pid may
// already belong to another process. Destroyed with ranks left (an exception unwinding), it
// kills and reaps them.
class RankProcesses {
 public:
  RankProcesses() = default;
  RankProcesses(const RankProcesses&) = delete;
  RankProcesses& operator=(const RankProcesses&) = delete;
  ~RankProcesses();

  // Throws RunError naming the rank when fork fails.
  void start(int rank, const RankCommand& command);
  // The ranks that have ended since the last call, in rank order; never blocks.
  std::vector<RankExit> reap_ended();
  void signal_all(int signal);
  // SIGKILL to the ranks that a signal has stopped (as reap_ended() last saw them).
  void kill_stopped();
  bool empty() const { return running_.empty(); }

 private:
  std::vector<std::pair<int, pid_t>> running_;  // (rank, pid), in rank order
  std::map<pid_t, int> stopped_;                // pid -> the signal that stopped it
};

}  // namespace runner::ranks
