// A Gloo process group as the SDK's Communicator, when Gloo's headers were found (Debian's
// LibTorch has them; pip's wheels do not ship them).
#pragma once

#include <memory>

#include "distributed/connect.hpp"

namespace runner::distributed {

std::shared_ptr<Communicator> make_gloo_communicator(const ConnectSpec& spec,
                                                     std::shared_ptr<RankHealth> health);
bool gloo_built();

}  // namespace runner::distributed
