// Connects the ranks of one run: rendezvous through the store, then a Gloo or NCCL group.
#pragma once

#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "distributed/collective_ledger.hpp"
#include "distributed/rank_health.hpp"
#include "distributed/wait_clock.hpp"
#include "runner/communicator.hpp"

namespace runner::distributed {

struct ConnectSpec {
  std::string backend;                         // "gloo" or "nccl"
  c10::intrusive_ptr<c10d::Store> store;       // scoped to the run (run_scope)
  c10::intrusive_ptr<c10d::Store> beat_store;  // a second connection, same scope
  std::string store_address;                   // host:port, for messages
  bool loopback = false;                       // every rank on this machine
  std::string node_address;  // what Gloo binds, the others reach this rank at; "": its choice
  int rank = 0, world_size = 1;
  std::chrono::milliseconds timeout{300000};
  // Where the rank's communicators add the time they waited; none when nullptr. NCCL's
  // collectives run on the GPU's streams: their waits are timed there (wait_clock.hpp).
  std::shared_ptr<WaitClock> waits;
  // Where the rank's communicators record their collectives; connect_ranks() makes one of
  // kLedgerEntries when nullptr.
  std::shared_ptr<CollectiveLedger> ledger;
  // How long the rank may make no progress before it gives up (ProgressWatch); 0: forever.
  std::chrono::milliseconds stall_timeout{0};
  bool check_collectives = false;  // train.check_collectives (call_check.hpp)
};

inline constexpr size_t kLedgerEntries = 4096;

struct RankConnection {
  std::shared_ptr<Communicator> communicator;
  std::shared_ptr<RankHealth> health;
  std::shared_ptr<WaitClock> waits;          // the spec's
  std::shared_ptr<CollectiveLedger> ledger;  // the spec's, or the one made
};

// Throws RunError naming the ranks that never joined when the rendezvous times out.
RankConnection connect_ranks(ConnectSpec spec);

// Why `backend` cannot run `local_ranks` ranks on this machine; nullopt when it can.
std::optional<std::string> backend_unavailable(const std::string& backend, int local_ranks);

}  // namespace runner::distributed
