// How many processes the kernel's out-of-memory killer has ended since boot: a rank ended by a
// SIGKILL no one of runner sent, while that count rose, ran out of memory (the kernel counts
// the kills of a memory cgroup's limit there too).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace runner::ranks {

// The "oom_kill N" line of `vmstat` (/proc/vmstat); nullopt where the file or the line is not
// there (kernels before 4.13).
std::optional<uint64_t> oom_kill_count(const std::string& vmstat = "/proc/vmstat");

}  // namespace runner::ranks
