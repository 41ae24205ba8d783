// What would end the host before its main could say why, found before it starts: a thread
// count of the environment (OpenMP started as many as told and crashed past 1024), an
// address-space limit (ulimit -v) too small for the dynamic loader to map LibTorch, and a
// variable libgomp's constructor refuses with a line of its own (OMP_PROC_BIND=bogus).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "launcher/trial_start.hpp"

namespace runner::launcher {

struct StartProblem {
  std::string message;  // one line, naming the variable or limit at fault
  std::string hint;
  int exit_code = 0;  // 2: the environment's setting, 5: the machine's limit
};

// The address-space limit (ulimit -v, RLIMIT_AS) in bytes; nullopt where there is none.
std::optional<uint64_t> address_space_limit();

// Whether the host must be started once to see whether it gets to its main: where the address
// space is limited, or an OpenMP variable (OMP_*, GOMP_*) is set. `environment`: NAME=VALUE.
bool needs_trial_start(const std::vector<std::string>& environment,
                       std::optional<uint64_t> address_limit);

// What a trial start that did not get to main, or whose libraries warned before it, tells the
// user, as runner's own line; nullopt where it started cleanly.
std::optional<StartProblem> trial_problem(const TrialStart& trial,
                                          const std::vector<std::string>& environment,
                                          std::optional<uint64_t> address_limit);

// Everything above for `host` in this process's environment, in order; nullopt: start it.
std::optional<StartProblem> start_problem(const std::string& host);

}  // namespace runner::launcher
