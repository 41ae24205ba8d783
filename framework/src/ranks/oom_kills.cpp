// How many processes the kernel's out-of-memory killer has ended, from /proc/vmstat.
#include "ranks/oom_kills.hpp"

#include <fstream>

namespace runner::ranks {

std::optional<uint64_t> oom_kill_count(const std::string& vmstat) {
  std::ifstream lines(vmstat);
  std::string name;
  uint64_t value = 0;
  while (lines >> name >> value)
    if (name == "oom_kill") return value;
  return std::nullopt;
}

}  // namespace runner::ranks
