// Gloo process groups: CPU and CUDA tensors, over TCP.
#include "distributed/gloo_group.hpp"

#include "runner/errors.hpp"

#if __has_include(<gloo/algorithm.h>)
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#include <cstdlib>
#include <utility>

#include "distributed/bind_address.hpp"
#include "distributed/c10d_communicator.hpp"

namespace runner::distributed {
namespace {

// Gloo binds the address its device names: GLOO_SOCKET_IFNAME's interface when the user names
// one, else RUNNER_NODE_ADDR's address, else the loopback when every rank runs here (the
// hostname may resolve to an address other machines use, or to none), else the hostname's.
std::shared_ptr<gloo::transport::Device> gloo_device(const ConnectSpec& spec) {
  if (const char* interface = std::getenv("GLOO_SOCKET_IFNAME"))
    return c10d::ProcessGroupGloo::createDeviceForInterface(interface);
  if (!spec.node_address.empty()) {
    check_node_address(spec.node_address);
    return c10d::ProcessGroupGloo::createDeviceForHostname(spec.node_address);
  }
  if (spec.loopback) return c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1");
  return c10d::ProcessGroupGloo::createDefaultDevice();
}

}  // namespace

namespace {

std::shared_ptr<Communicator> gloo_group(const ConnectSpec& spec,
                                         std::shared_ptr<RankHealth> health,
                                         c10::intrusive_ptr<c10d::Store> store,
                                         const GroupPlace& place) {
  auto options = c10d::ProcessGroupGloo::Options::create(spec.timeout);
  options->devices = {gloo_device(spec)};
  using Gloo = C10dCommunicator<c10d::ProcessGroupGloo>;
  Gloo::Setup setup;
  setup.group =
      c10::make_intrusive<c10d::ProcessGroupGloo>(store, place.rank, place.size(), options);
  // Subgroups share the health; the lambda takes its copy before the group takes the pointer.
  setup.make_subgroup = [spec, health](c10::intrusive_ptr<c10d::Store> sub,
                                       const GroupPlace& sub_place) {
    return gloo_group(spec, health, std::move(sub), sub_place);
  };
  setup.health = std::move(health);
  setup.traits = {"gloo", false, false, true};
  setup.place = place;
  setup.timeout = spec.timeout;
  setup.store = std::move(store);
  setup.waits = spec.waits;
  setup.ledger = spec.ledger;
  setup.check_calls = spec.check_collectives;
  return std::make_shared<Gloo>(std::move(setup));
}

}  // namespace

bool gloo_built() { return true; }

std::shared_ptr<Communicator> make_gloo_communicator(const ConnectSpec& spec,
                                                     std::shared_ptr<RankHealth> health) {
  return gloo_group(spec, std::move(health), spec.store, world_place(spec.rank, spec.world_size));
}

}  // namespace runner::distributed

#else

namespace runner::distributed {

bool gloo_built() { return false; }

std::shared_ptr<Communicator> make_gloo_communicator(const ConnectSpec&,
                                                     std::shared_ptr<RankHealth>) {
  throw RunSkipped("backend gloo: this build found no Gloo headers");
}

}  // namespace runner::distributed

#endif
