// Where each rank of a failed run was, from the states they published (rank_state.hpp) and how
// their processes ended: the first collective not every member of its group joined, who is
// missing from it and what they were doing, or two ranks that called different collectives at
// the same place. First a line a person can act on, then a line per rank.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "distributed/rank_state.hpp"

namespace runner::distributed {

struct RankSeen {
  int rank = 0;
  // How its process ended when that was the fault ("was killed by signal 9 (SIGKILL)", "was
  // stopped by signal 19 (SIGSTOP)"); empty: it ran on or ended because another rank failed.
  std::string fate;
  std::optional<RankState> state;  // its newest published state; nullopt: none
};

struct HangReport {
  // The line that names the fault and where every rank was; empty when the states tell no
  // more than the failure itself (every rank was in the same collective).
  std::string first_line;
  std::vector<std::string> detail;  // a line per rank, then each mismatch
};

// How long a rank had been where it was counts to its state's last publication.
HangReport hang_report(const std::vector<RankSeen>& ranks);

}  // namespace runner::distributed
