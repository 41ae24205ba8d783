// What the ranks of a run tell each other through the store, so that when a collective fails
// every surviving rank can say which rank is at fault:
//   joined/<r>   rank r reached the rendezvous
//   beat/<r>     a counter rank r's heartbeat thread raises every kBeat
//   failed/<r>   rank r's own error (not one caused by another rank)
//   hint/<r>     what to change about it, where the error says (a configuration error)
//   peer/<r>     rank r's error caused by another rank's failure
//   done/<r>     rank r finished its run
//   state/<r>    where rank r is (rank_state.hpp), raised with each beat and on its failure
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <vector>

#include "common/periodic_thread.hpp"
#include "distributed/collective_ledger.hpp"
#include "distributed/rank_state.hpp"

namespace runner::distributed {

inline constexpr std::chrono::milliseconds kBeat{250};

// Rank r's own error, if it reported one, and its hint; its error caused by another rank, if
// that.
std::optional<std::string> reported_failure(c10d::Store& store, int rank);
std::optional<std::string> reported_hint(c10d::Store& store, int rank);
std::optional<std::string> reported_peer_failure(c10d::Store& store, int rank);
// Rank r's newest state; nullopt when it published none (or none readable).
std::optional<RankState> published_state(c10d::Store& store, int rank);

// What the heartbeat watches besides the rank's life.
struct ProgressWatch {
  std::shared_ptr<CollectiveLedger> ledger;  // published each beat; nullptr: nothing published
  // How long the rank may make no progress outside a collective before it gives up (its
  // process ends with exit code 5, its failure and state published); 0: forever.
  std::chrono::milliseconds stall_timeout{0};
};

class RankHealth {
 public:
  // `store` serves the calls of this thread; `beat_store`, a second connection, the heartbeat
  // thread's (a store call waiting for a key would hold up the beats of a shared one).
  RankHealth(c10::intrusive_ptr<c10d::Store> store, c10::intrusive_ptr<c10d::Store> beat_store,
             int rank, int world_size, ProgressWatch watch = {});
  RankHealth(const RankHealth&) = delete;
  RankHealth& operator=(const RankHealth&) = delete;

  void mark_joined();
  std::vector<int> ranks_not_joined();
  void report_failure(const std::string& message, const std::string& hint = "");
  void report_peer_failure(const std::string& message);
  void report_done();
  // This rank's state now, for a hang report; best effort.
  void publish_state();

  // Why `what` (a collective, the rendezvous) failed with `error`: another rank's reported
  // error, else the ranks whose heartbeat stopped, else the error itself.
  std::string diagnose(const std::string& what, const std::string& error);

 private:
  bool beat();
  // Gives up (ends the process) when the rank made no progress for the stall timeout.
  void watch_for_stall();
  [[noreturn]] void give_up(const RankActivity& activity, std::chrono::seconds stalled);
  std::vector<int64_t> beats();
  std::vector<int> ranks_done();

  c10::intrusive_ptr<c10d::Store> store_;
  c10::intrusive_ptr<c10d::Store> beat_store_;
  int rank_, world_size_;
  ProgressWatch watch_;
  uint64_t changes_seen_ = 0;
  std::chrono::steady_clock::time_point changed_at_ = std::chrono::steady_clock::now();
  PeriodicThread beater_;  // last: it starts at once and uses the members above
};

}  // namespace runner::distributed
