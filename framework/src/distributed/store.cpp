// Serving, joining and scoping the TCP store, each failure naming its address.
#include "distributed/store.hpp"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "common/one_line.hpp"
#include "distributed/bind_address.hpp"
#include "runner/compat.hpp"
#include "runner/errors.hpp"

namespace runner::distributed {
namespace {

c10d::TCPStoreOptions options_of(const StoreAddress& address, bool server,
                                 std::chrono::milliseconds timeout) {
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(address.port);
  options.isServer = server;
  options.waitWorkers = false;  // the ranks connect later; rendezvous waits for them itself
  options.timeout = timeout;
  compat::use_classic_store_server(options);
  return options;
}

RunError port_in_use(int port) {
  return RunError("the rendezvous port " + std::to_string(port) + " is in use",
                  "set MASTER_PORT to a free port, or leave it unset for a local launch");
}

// Whether another socket holds `port` of `interface`: asked before TCPStore is, which logs its
// failures to bind through LibTorch's logging (lines of c10d's own) before it throws.
bool port_taken(sockaddr_storage interface, int port) {
  if (port == 0) return false;  // any free port
  socklen_t length = sizeof(sockaddr_in6);
  if (interface.ss_family == AF_INET) {
    reinterpret_cast<sockaddr_in&>(interface).sin_port = htons(static_cast<uint16_t>(port));
    length = sizeof(sockaddr_in);
  } else {
    reinterpret_cast<sockaddr_in6&>(interface).sin6_port = htons(static_cast<uint16_t>(port));
  }
  const int fd = socket(interface.ss_family, SOCK_STREAM, 0);
  if (fd < 0) return false;  // TCPStore will say why
  const int on = 1;          // as TCPStore binds: a port left in TIME_WAIT is free
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  const bool taken =
      bind(fd, reinterpret_cast<const sockaddr*>(&interface), length) != 0 && errno == EADDRINUSE;
  close(fd);
  return taken;
}

}  // namespace

std::string address_text(const StoreAddress& address) {
  return address.host + ":" + std::to_string(address.port);
}

c10::intrusive_ptr<c10d::Store> serve_store(const StoreAddress& address,
                                            std::chrono::milliseconds timeout, int& bound,
                                            bool all_ranks_local) {
  const sockaddr_storage interface = listen_address(address.host, all_ranks_local);
  if (port_taken(interface, address.port)) throw port_in_use(address.port);
  try {
    const ScopedBindAddress only_there(interface);
    auto store =
        c10::make_intrusive<c10d::TCPStore>(address.host, options_of(address, true, timeout));
    bound = store->getPort();
    return store;
  } catch (const std::exception& e) {
    const std::string why = one_line(e);
    if (why.find("ddress already in use") != std::string::npos) throw port_in_use(address.port);
    throw RunError("cannot serve the rendezvous store on port " + std::to_string(address.port) +
                   ": " + why);
  }
}

c10::intrusive_ptr<c10d::Store> connect_store(const StoreAddress& address,
                                              std::chrono::milliseconds timeout) {
  try {
    return c10::make_intrusive<c10d::TCPStore>(address.host, options_of(address, false, timeout));
  } catch (const std::exception& e) {
    throw RunError("cannot reach the rendezvous store at " + address_text(address) + " within " +
                       std::to_string(timeout.count() / 1000) + " s: " + one_line(e),
                   "check MASTER_ADDR and MASTER_PORT, and that rank 0 is running");
  }
}

c10::intrusive_ptr<c10d::Store> join_launcher_store(const StoreAddress& address,
                                                    const std::string& prefix,
                                                    std::chrono::milliseconds timeout) {
  return c10::make_intrusive<c10d::PrefixStore>(prefix, connect_store(address, timeout));
}

c10::intrusive_ptr<c10d::Store> run_scope(const c10::intrusive_ptr<c10d::Store>& store,
                                          const std::string& run_key) {
  return c10::make_intrusive<c10d::PrefixStore>("runner/" + run_key, store);
}

}  // namespace runner::distributed
