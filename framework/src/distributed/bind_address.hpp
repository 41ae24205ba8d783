// Where the rendezvous store listens. LibTorch 1.13's TCPStore takes no address to bind and
// listens on every interface; while a ScopedBindAddress lives on a thread, the bind() of this
// program (it interposes the C library's for every library loaded) turns a bind to the
// wildcard address on that thread into a bind to the scope's address.
#pragma once

#include <sys/socket.h>

#include <string>

namespace runner::distributed {

// The address of `host` on this machine that the store should listen on. `all_ranks_local`:
// every rank runs here, so a loopback address is right; otherwise a loopback address is
// refused (the other machines could not reach it), as is a host that is not this machine.
// Throws RunError naming the host.
sockaddr_storage listen_address(const std::string& host, bool all_ranks_local);

// Whether `host` resolves to an address of one of this machine's interfaces (any loopback
// address counts): false when it does not resolve.
bool is_address_of_this_machine(const std::string& host);

// RUNNER_NODE_ADDR's value (ConnectSpec::node_address) checked: throws ConfigError naming it
// when it is no address of this machine.
void check_node_address(const std::string& address);

class ScopedBindAddress {
 public:
  explicit ScopedBindAddress(const sockaddr_storage& address);
  ~ScopedBindAddress();
  ScopedBindAddress(const ScopedBindAddress&) = delete;
  ScopedBindAddress& operator=(const ScopedBindAddress&) = delete;
};

}  // namespace runner::distributed
