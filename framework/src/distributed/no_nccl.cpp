// A LibTorch without CUDA has no NCCL: backend_unavailable() says so before any rank starts.
#include <stdexcept>
#include <string>

#include "distributed/nccl_group.hpp"
#include "runner/errors.hpp"

namespace runner::distributed {

bool nccl_built() { return false; }

// The health by value, as the CUDA build's nccl_group.cpp takes it to keep.
// NOLINTBEGIN(performance-unnecessary-value-param)
std::shared_ptr<Communicator> make_nccl_communicator(const ConnectSpec&,
                                                     std::shared_ptr<RankHealth>) {
  throw RunSkipped("backend nccl needs LibTorch built with CUDA; this one is CPU-only");
}
// NOLINTEND(performance-unnecessary-value-param)

std::unique_ptr<StreamStall> cuda_stream_stall(torch::Device device) {
  throw std::invalid_argument("cannot time a wait on " + device.str() +
                              ": this LibTorch is CPU-only");
}

}  // namespace runner::distributed
