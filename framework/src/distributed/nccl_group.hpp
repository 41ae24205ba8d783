// A NCCL process group as the SDK's Communicator: nccl_group.cpp in CUDA builds, no_nccl.cpp
// (which refuses) otherwise.
#pragma once

#include <memory>

#include "distributed/connect.hpp"

namespace runner::distributed {

std::shared_ptr<Communicator> make_nccl_communicator(const ConnectSpec& spec,
                                                     std::shared_ptr<RankHealth> health);
bool nccl_built();

}  // namespace runner::distributed
