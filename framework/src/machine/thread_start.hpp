// Whether this process may start the threads a run asks for. The limit of a user's processes
// (ulimit -u, RLIMIT_NPROC) counts their threads too, and at::set_num_threads asked for more
// than it leaves waited forever for a worker that never started (pthreadpool_create does not
// check pthread_create's answer).
#pragma once

#include <optional>
#include <string>

namespace runner::machine {

// Starts `beside` threads beside the caller, all alive at once, then ends them. The problem as
// one line when the system refuses one: "cannot start 3 threads beside this one: Resource
// temporarily unavailable; this user may run 2 processes and threads (ulimit -u)"; nullopt
// when every one started.
std::optional<std::string> thread_start_problem(int beside);

}  // namespace runner::machine
