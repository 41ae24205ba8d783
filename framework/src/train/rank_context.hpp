// The ranks a run trains on, as the trainer sees them: the communicator among all of them,
// and this rank's place on its machine (its GPU, its share of the cores).
#pragma once

#include <memory>

#include "distributed/collective_ledger.hpp"
#include "distributed/wait_clock.hpp"
#include "runner/communicator.hpp"

namespace runner::train {

struct RankContext {
  std::shared_ptr<Communicator> communicator = std::make_shared<SingleRankCommunicator>();
  int local_rank = 0;
  int local_world_size = 1;
  int attempt = 0;  // starts of the run's ranks before this one, after failures
  // The time this rank waited in its collectives; nullptr where not measured.
  std::shared_ptr<const distributed::WaitClock> waits;
  // The rank's collectives and what it is doing; one rank alone keeps no entries.
  std::shared_ptr<distributed::CollectiveLedger> ledger =
      std::make_shared<distributed::CollectiveLedger>(0);

  int rank() const { return communicator->rank(); }
  int world_size() const { return communicator->world_size(); }
};

}  // namespace runner::train
