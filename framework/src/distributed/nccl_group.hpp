// A NCCL process group as the SDK's Communicator: nccl_group.cpp in CUDA builds, no_nccl.cpp
// (which refuses) otherwise.
#pragma once

#include <memory>

#include "distributed/connect.hpp"

namespace runner::distributed {

std::shared_ptr<Communicator> make_nccl_communicator(const ConnectSpec& spec,
                                                     std::shared_ptr<RankHealth> health);
bool nccl_built();

// How a NCCL group times a wait on `device` (a GPU): two CUDA events on its current stream, the
// first recorded now, the second by end(). The stream reaches the first once the work queued
// before it is done and the second once the collective is too (wait() makes the stream wait
// for it), so their interval is the part of the collective that work did not hide.
std::unique_ptr<StreamStall> cuda_stream_stall(torch::Device device);

}  // namespace runner::distributed
