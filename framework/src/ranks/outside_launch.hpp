// A run under torchrun or srun: this process is one of its ranks, and rank 0 (or torchrun's
// agent) serves the store for the whole sweep, each run keeping to its own keys.
#pragma once

#include <torch/csrc/distributed/c10d/Store.hpp>

#include "checkpoint/settings.hpp"
#include "ranks/local_launch.hpp"
#include "ranks/rank_run.hpp"
#include "ranks/rank_setup.hpp"

namespace runner::ranks {

class OutsideLaunch {
 public:
  explicit OutsideLaunch(const LaunchContext& c) : c_(c) {}

  // Trains this rank's part of the run; rank 0 records it. `index` names the run's keys.
  record::RunOutcome run(const config::RunConfig& run, const RankSetup& setup, size_t index,
                         const record::RunStart& start,
                         const checkpoint::CheckpointSettings& checkpoints);

 private:
  // The store, joined or served on the first run, kept for the next ones.
  const c10::intrusive_ptr<c10d::Store>& store(const RankSetup& setup, const ThisRank& self,
                                               results::RunWriter& writer);

  const LaunchContext& c_;
  c10::intrusive_ptr<c10d::Store> store_;
};

}  // namespace runner::ranks
