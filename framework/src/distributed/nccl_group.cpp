// NCCL process groups, in CUDA builds: one GPU per rank, the one of the rank's CUDA device.
#include "distributed/nccl_group.hpp"

#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>

#include "distributed/c10d_communicator.hpp"

namespace runner::distributed {

namespace {

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

std::shared_ptr<Communicator> make_nccl_communicator(const ConnectSpec& spec,
                                                     std::shared_ptr<RankHealth> health) {
  return nccl_group(spec, std::move(health), spec.store, world_place(spec.rank, spec.world_size));
}

}  // namespace runner::distributed
