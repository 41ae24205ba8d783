// One rank of each run under torchrun or srun, on a store that lasts the sweep.
#include "ranks/outside_launch.hpp"

#include <fmt/format.h>

#include "distributed/connect.hpp"
#include "train/interrupt.hpp"

namespace runner::ranks {
namespace {

bool is_loopback(const std::string& host) {
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1";
}

}  // namespace

record::RunOutcome OutsideLaunch::run(const config::RunConfig& run, const RankPlan& plan,
                                      size_t index, const record::RunStart& start,
                                      const train::CheckpointSettings& checkpoints) {
  const RankEnvironment& env = c_.environment;
  const ThisRank self{env.rank,
                      env.local_rank,
                      {env.master_addr, env.master_port},
                      is_loopback(env.master_addr),
                      "run" + std::to_string(index)};
  const std::string prefix = fmt::format("rank {}: ", env.rank);
  return record::record_run(
      c_.recording, run, env.rank == 0, plan.world_size, plan.local_world_size, prefix, start,
      [&](results::RunWriter& writer) {
        if (auto why = distributed::backend_unavailable(plan.backend, plan.local_world_size))
          throw RunSkipped(*why);
        return train_as_rank(run, c_.registry, c_.recording.console, writer, plan, self,
                             store(plan, self, writer), checkpoints);
      });
}

const c10::intrusive_ptr<c10d::Store>& OutsideLaunch::store(const RankPlan& plan,
                                                            const ThisRank& self,
                                                            results::RunWriter& writer) {
  if (store_) return store_;
  const train::InterruptibleWait connecting(
      fmt::format("rank {}: ", self.rank),
      [&](const std::string& e) { record::record_failed(writer, e); });
  const std::string& agent_prefix = c_.environment.agent_store_prefix;
  if (!agent_prefix.empty()) {
    store_ = distributed::join_launcher_store(self.store, agent_prefix, plan.timeout);
  } else if (self.rank == 0) {
    int bound = 0;
    store_ = distributed::serve_store(self.store, plan.timeout, bound,
                                      plan.local_world_size == plan.world_size);
  } else {
    store_ = distributed::connect_store(self.store, plan.timeout);
  }
  return store_;
}

}  // namespace runner::ranks
