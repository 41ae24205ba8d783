// What a sweep stopped by Ctrl-C or SIGTERM says last: where the stopped run can go on from,
// and the command that goes on.
#pragma once

#include <string>
#include <vector>

namespace runner::sweep {

// `argv` as a shell command line, "--resume" added: each word quoted where the shell would
// split or expand it.
std::string resume_command(const std::vector<std::string>& argv);

// The hint for the run stopped with its checkpoints in `run_folder`: its last checkpoint and
// `command`, or that it saved none. `completed`: the runs of the sweep that completed or were
// kept before it, which `--resume` keeps.
std::string interrupt_hint(const std::string& run_id, const std::string& run_folder,
                           const std::string& command, size_t completed);

// The hint when the interrupt came between two runs.
std::string between_runs_hint(const std::string& command, size_t completed);

}  // namespace runner::sweep
