// What a rank publishes through the store so that a hang report can say where it was: its phase
// and step, each of its groups' newest sequence number, and its newest collectives. Text, one
// record a line, times as Unix seconds so that the ranks' states compare on one clock.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "distributed/collective_ledger.hpp"

namespace runner::distributed {

// The newest collectives a state keeps: the ranks of a run are at most a few apart.
inline constexpr size_t kPublishedCollectives = 32;

struct PublishedGroup {
  std::string name;
  std::vector<int> ranks;  // of the run
  uint64_t sequence = 0;   // of its newest collective on this rank
};

struct PublishedCollective {
  std::string group;
  uint64_t sequence = 0;
  std::string op, dtype;
  int64_t elements = 0;
  int64_t step = 0;
  std::string state;  // "issued", "completed", "failed"
  double issued_unix = 0;
  std::string text;  // entry_text()
};

struct RankState {
  int rank = 0;
  std::string phase;  // phase_name()
  int64_t step = 0;
  double phase_since_unix = 0;
  double published_unix = 0;
  bool stalled = false;  // it gave up: no progress for train.stall_timeout_s
  std::vector<PublishedGroup> groups;
  std::vector<PublishedCollective> collectives;  // oldest first

  // The newest collective, unless it completed: what the rank waits in (or failed in).
  const PublishedCollective* stuck_in() const;
  // The newest collective that completed.
  const PublishedCollective* last_completed() const;
};

std::string encode_rank_state(const CollectiveLedger& ledger, int rank, bool stalled);
// nullopt when `text` is not a state encode_rank_state() wrote.
std::optional<RankState> decode_rank_state(const std::string& text);

double unix_seconds_now();

}  // namespace runner::distributed
