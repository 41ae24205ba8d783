// How many ranks a run takes and how they connect, read from its [strategy] keys (a strategy
// that declares runner::add_distributed_keys runs on several ranks; any other on one).
#pragma once

#include <chrono>
#include <string>

#include "config/experiment.hpp"

namespace runner::ranks {

struct RunRanks {
  bool distributed = false;
  int world_size = 1;  // 0: the launcher's, or one rank per GPU of this machine
  std::string backend = "gloo";
  std::chrono::milliseconds timeout{300000};
};

RunRanks ranks_of(const config::RunConfig& run);

// The ranks a run started by hand takes on this machine: world_size, or for 0 one per GPU
// when it trains on CUDA, else 1.
int local_world_size(const config::RunConfig& run, const RunRanks& ranks);

}  // namespace runner::ranks
