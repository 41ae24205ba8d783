// One run trained as one rank of several: connect to the others through the store, train
// this rank's part, and tell the others when this rank fails on its own.
#pragma once

#include <torch/csrc/distributed/c10d/Store.hpp>

#include "distributed/store.hpp"
#include "ranks/rank_setup.hpp"
#include "record/console.hpp"
#include "train/trainer.hpp"

namespace runner::ranks {

// This process among the setup's ranks, and where the ranks meet.
struct ThisRank {
  int rank = 0, local_rank = 0;
  distributed::StoreAddress store;  // for a second connection and for messages
  bool loopback = false;            // every rank on this machine
  std::string run_key;              // the run's keys in the store
  int attempt = 0;                  // starts of the run's ranks before this one
  std::string node_addr;            // RUNNER_NODE_ADDR: what Gloo binds ("" when unset)
};

results::Summary train_as_rank(const config::RunConfig& run, const plugin_host::Registry& registry,
                               record::Console& console, results::RunWriter& writer,
                               const RankSetup& setup, const ThisRank& self,
                               const c10::intrusive_ptr<c10d::Store>& store,
                               const checkpoint::CheckpointSettings& checkpoints);

}  // namespace runner::ranks
