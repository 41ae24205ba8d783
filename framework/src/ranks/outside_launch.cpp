// One rank of each run under torchrun or srun, on a store that lasts the sweep.
#include "ranks/outside_launch.hpp"

#include <fmt/format.h>

#include "distributed/connect.hpp"
#include "interrupt/interrupt.hpp"

namespace runner::ranks {

record::RunOutcome OutsideLaunch::run(const config::RunConfig& run, const RankSetup& setup,
                                      size_t index, const record::RunStart& start,
                                      const checkpoint::CheckpointSettings& checkpoints) {
  const RankEnvironment& env = c_.environment;
  const ThisRank self{env.rank,
                      env.local_rank,
                      {env.master_addr, env.master_port},
                      is_loopback_host(env.master_addr),
                      "run" + std::to_string(index),
                      env.attempt,
                      env.node_addr};
  const std::string prefix = fmt::format("rank {}: ", env.rank);
  return record::record_run(
      c_.recording, run, env.rank == 0, setup.world_size, setup.local_world_size, prefix, start,
      [&](results::RunWriter& writer) {
        if (auto why = distributed::backend_unavailable(setup.backend, setup.local_world_size))
          throw RunSkipped(*why);
        return train_as_rank(run, c_.registry, c_.recording.console, writer, setup, self,
                             store(setup, self, writer), checkpoints);
      });
}

const c10::intrusive_ptr<c10d::Store>& OutsideLaunch::store(const RankSetup& setup,
                                                            const ThisRank& self,
                                                            results::RunWriter& writer) {
  if (store_) return store_;
  const InterruptibleWait connecting(
      fmt::format("rank {}: ", self.rank),
      [&](const std::string& e) { record::record_failed(writer, e); });
  const std::string& agent_prefix = c_.environment.agent_store_prefix;
  if (!agent_prefix.empty()) {
    store_ = distributed::join_launcher_store(self.store, agent_prefix, setup.timeout);
  } else if (self.rank == 0) {
    int bound = 0;
    // Nodes on loopback addresses of their own share this machine (RUNNER_NODE_ADDR).
    const bool all_ranks_local = setup.local_world_size == setup.world_size ||
                                 (self.loopback && is_loopback_host(self.node_addr));
    store_ = distributed::serve_store(self.store, setup.timeout, bound, all_ranks_local);
  } else {
    store_ = distributed::connect_store(self.store, setup.timeout);
  }
  return store_;
}

}  // namespace runner::ranks
