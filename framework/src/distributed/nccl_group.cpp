// NCCL process groups, in CUDA builds: one GPU per rank, the one of the rank's CUDA device.
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>

#include "distributed/c10d_communicator.hpp"
#include "distributed/connect.hpp"

namespace runner::distributed {

bool nccl_built() { return true; }

std::shared_ptr<Communicator> make_nccl_communicator(const ConnectSpec& spec,
                                                     std::shared_ptr<RankHealth> health) {
  auto options = c10d::ProcessGroupNCCL::Options::create();
  options->timeout = spec.timeout;
  auto group =
      c10::make_intrusive<c10d::ProcessGroupNCCL>(spec.store, spec.rank, spec.world_size, options);
  return std::make_shared<C10dCommunicator<c10d::ProcessGroupNCCL>>(
      group, std::move(health), "nccl", spec.rank, spec.world_size, spec.timeout,
      [group] { group->shutdown(); });
}

}  // namespace runner::distributed
