// NCCL process groups, in CUDA builds: one GPU per rank, the one of the rank's CUDA device.
#include "distributed/nccl_group.hpp"

#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>

#include "distributed/c10d_communicator.hpp"

namespace runner::distributed {

namespace {

class CudaStreamStall final : public StreamStall {
 public:
  explicit CudaStreamStall(torch::Device device)
      : stream_(c10::cuda::getCurrentCUDAStream(device.index())) {
    start_.record(stream_);
  }
  void end() override { end_.record(stream_); }
  double seconds() override {
    end_.synchronize();
    return static_cast<double>(start_.elapsed_time(end_)) * 1e-3;
  }

 private:
  c10::cuda::CUDAStream stream_;
  at::cuda::CUDAEvent start_{cudaEventDefault};  // the default flags disable timing
  at::cuda::CUDAEvent end_{cudaEventDefault};
};

std::shared_ptr<Communicator> nccl_group(const ConnectSpec& spec,
                                         std::shared_ptr<RankHealth> health,
                                         c10::intrusive_ptr<c10d::Store> store,
                                         const GroupPlace& place) {
  auto options = c10d::ProcessGroupNCCL::Options::create();
  options->timeout = spec.timeout;
  using Nccl = C10dCommunicator<c10d::ProcessGroupNCCL>;
  Nccl::Setup setup;
  auto group =
      c10::make_intrusive<c10d::ProcessGroupNCCL>(store, place.rank, place.size(), options);
  setup.group = group;
  setup.health = health;
  setup.traits = {"nccl", true, true};
  setup.place = place;
  setup.timeout = spec.timeout;
  setup.store = store;
  setup.waits = spec.waits;
  setup.stream_stall = cuda_stream_stall;
  setup.ledger = spec.ledger;
  setup.check_calls = spec.check_collectives;
  setup.make_subgroup = [spec, health](c10::intrusive_ptr<c10d::Store> sub,
                                       const GroupPlace& sub_place) {
    return nccl_group(spec, health, std::move(sub), sub_place);
  };
  setup.close = [group] { group->shutdown(); };
  return std::make_shared<Nccl>(std::move(setup));
}

}  // namespace

bool nccl_built() { return true; }

std::unique_ptr<StreamStall> cuda_stream_stall(torch::Device device) {
  return std::make_unique<CudaStreamStall>(device);
}

std::shared_ptr<Communicator> make_nccl_communicator(const ConnectSpec& spec,
                                                     std::shared_ptr<RankHealth> health) {
  return nccl_group(spec, std::move(health), spec.store, world_place(spec.rank, spec.world_size));
}

}  // namespace runner::distributed
