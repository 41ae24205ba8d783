// A run's rank count, backend and timeout from its [strategy] keys.
#include "ranks/run_ranks.hpp"

#include <torch/torch.h>

namespace runner::ranks {

RunRanks ranks_of(const config::RunConfig& run) {
  const Options& strategy = run.strategy.options;
  RunRanks ranks;
  ranks.distributed = strategy.has("world_size");
  if (!ranks.distributed) return ranks;
  ranks.world_size = static_cast<int>(strategy.get_int("world_size"));
  if (strategy.has("backend")) ranks.backend = strategy.get_string("backend");
  if (strategy.has("timeout_s"))
    ranks.timeout = std::chrono::milliseconds(strategy.get_int("timeout_s") * 1000);
  return ranks;
}

int local_world_size(const config::RunConfig& run, const RunRanks& ranks) {
  if (ranks.world_size > 0) return ranks.world_size;
  const bool cuda = run.train.get_string("device") != "cpu" && torch::cuda::is_available();
  return cuda ? static_cast<int>(torch::cuda::device_count()) : 1;
}

}  // namespace runner::ranks
