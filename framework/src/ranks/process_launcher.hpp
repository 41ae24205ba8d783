// Runs the ranks of a local launch (`runner --nproc N`) as child processes and waits for all of
// them. When one fails or the user interrupts, the others get a grace period to stop on their
// own (a collective times out, the run is recorded), then SIGTERM, then SIGKILL.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace runner::ranks {

struct RankExit {
  int rank = 0;
  int exit_code = 0;   // when it exited; -1 when a signal ended it or the status is unknown
  int signal = 0;      // when a signal ended it
  int stopped_by = 0;  // the signal (SIGSTOP) that had stopped it when it ended, or 0
  // SIGKILL ended it, not sent by the launcher, while the kernel's out-of-memory killer ended
  // this many processes (since the launch); 0 otherwise.
  uint64_t oom_kills = 0;
  bool succeeded() const { return signal == 0 && exit_code == 0; }
};

// "exited with code 5", "was killed by signal 9 (SIGKILL)", "was killed by signal 9 (SIGKILL)
// while the kernel's out-of-memory killer ended 1 process: it ran out of memory".
std::string describe_exit(const RankExit& exit);

struct LaunchSpec {
  std::vector<std::string> argv;  // argv[0]: the executable's path (no PATH search)
  int world_size = 1;
  std::map<std::string, std::string> env;  // added to (or replacing in) the launcher's environment
  std::function<std::map<std::string, std::string>(int rank)> rank_env;  // per rank, over env
  std::chrono::milliseconds grace{
      30000};  // after the first failure, how long the others may take
               // to stop on their own before SIGTERM, then SIGKILL 5 s later
};

// Called as each rank's end is seen (the launcher's thread, between two polls).
using RankEndWatch = std::function<void(const RankExit& exit)>;

struct LaunchResult {
  std::vector<RankExit> exits;  // in the order the ranks ended (rank order within one 20 ms poll)
  bool succeeded() const;       // every rank exited 0
};

// Starts world_size processes and waits for all of them. `interrupted` (may be empty) is polled
// every 20 ms; when it turns true the ranks get SIGINT once, then a second's grace, SIGTERM and
// SIGKILL. A rank found stopped (SIGSTOP) once a rank failed or the user interrupted is killed
// at once: it cannot end on its own, and SIGTERM waits for it to be continued. The ranks stay
// in the launcher's process group, so a terminal's Ctrl-C reaches them too, and die with the
// calling thread (PR_SET_PDEATHSIG), which this call blocks until they end.
// Throws RunError when argv[0] is not executable or a fork fails; the ranks started are then
// killed and reaped first. No error path leaves a zombie or an orphan of ours.
LaunchResult launch_ranks(const LaunchSpec& spec, const std::function<bool()>& interrupted,
                          const RankEndWatch& on_rank_end = nullptr);

}  // namespace runner::ranks
