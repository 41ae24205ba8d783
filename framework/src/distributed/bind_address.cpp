// The store's listen address, and the interposed bind() that moves a wildcard bind onto it.
#include "distributed/bind_address.hpp"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>

#include "runner/errors.hpp"

namespace runner::distributed {
namespace {

thread_local const sockaddr_storage* scoped_address = nullptr;

bool is_wildcard(const sockaddr* address) {
  if (address->sa_family == AF_INET)
    return reinterpret_cast<const sockaddr_in*>(address)->sin_addr.s_addr == htonl(INADDR_ANY);
  if (address->sa_family == AF_INET6)
    return IN6_IS_ADDR_UNSPECIFIED(&reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr);
  return false;
}

bool is_loopback(const sockaddr* address) {
  if (address->sa_family == AF_INET)
    return (ntohl(reinterpret_cast<const sockaddr_in*>(address)->sin_addr.s_addr) >> 24) == 127;
  return address->sa_family == AF_INET6 &&
         IN6_IS_ADDR_LOOPBACK(&reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr);
}

bool same_host_address(const sockaddr* a, const sockaddr* b) {
  if (a->sa_family != b->sa_family) return false;
  if (a->sa_family == AF_INET)
    return reinterpret_cast<const sockaddr_in*>(a)->sin_addr.s_addr ==
           reinterpret_cast<const sockaddr_in*>(b)->sin_addr.s_addr;
  return std::memcmp(&reinterpret_cast<const sockaddr_in6*>(a)->sin6_addr,
                     &reinterpret_cast<const sockaddr_in6*>(b)->sin6_addr, sizeof(in6_addr)) == 0;
}

// Whether an interface of this machine has `address`.
bool is_local(const sockaddr* address) {
  if (is_loopback(address)) return true;
  ifaddrs* interfaces = nullptr;
  if (getifaddrs(&interfaces) != 0) return false;
  std::unique_ptr<ifaddrs, decltype(&freeifaddrs)> owned(interfaces, freeifaddrs);
  for (const ifaddrs* i = interfaces; i; i = i->ifa_next)
    if (i->ifa_addr && same_host_address(i->ifa_addr, address)) return true;
  return false;
}

std::string numeric(const sockaddr* address) {
  char text[INET6_ADDRSTRLEN] = "?";
  if (address->sa_family == AF_INET)
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(address)->sin_addr, text, sizeof text);
  else
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr, text,
              sizeof text);
  return text;
}

}  // namespace

sockaddr_storage listen_address(const std::string& host, bool all_ranks_local) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int error = getaddrinfo(host.c_str(), nullptr, &hints, &found); error != 0)
    throw RunError("the rendezvous address " + host + " does not resolve: " + gai_strerror(error),
                   "set MASTER_ADDR to rank 0's host name or address");
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> owned(found, freeaddrinfo);
  std::string seen;
  for (const addrinfo* a = found; a; a = a->ai_next) {
    seen += (seen.empty() ? "" : ", ") + numeric(a->ai_addr);
    if (!is_local(a->ai_addr) || (is_loopback(a->ai_addr) && !all_ranks_local)) continue;
    sockaddr_storage address{};
    std::memcpy(&address, a->ai_addr, a->ai_addrlen);
    return address;
  }
  throw RunError("rank 0 serves the rendezvous store at " + host + " (" + seen +
                     "), which is no address of this machine that the other machines can reach",
                 "set MASTER_ADDR to the address of rank 0's network interface");
}

bool is_address_of_this_machine(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0) return false;
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> owned(found, freeaddrinfo);
  for (const addrinfo* a = found; a; a = a->ai_next)
    if (is_local(a->ai_addr)) return true;
  return false;
}

void check_node_address(const std::string& address) {
  if (!is_address_of_this_machine(address))
    throw ConfigError("RUNNER_NODE_ADDR = \"" + address + "\" is no address of this machine",
                      "set it to this node's own address, the one the other nodes reach it at");
}

ScopedBindAddress::ScopedBindAddress(const sockaddr_storage& address) { scoped_address = &address; }

ScopedBindAddress::~ScopedBindAddress() { scoped_address = nullptr; }

}  // namespace runner::distributed

namespace runner::distributed {
namespace {

// `wildcard` (its family and port) bound to the scope's address instead. TCPStore tries IPv6
// first, a dual-stack socket: an IPv4 address becomes its IPv4-mapped IPv6 form (::ffff:a.b.c.d),
// which takes IPv4 clients. Nullopt for an IPv4 wildcard and an IPv6 address.
std::optional<sockaddr_storage> in_scope(const sockaddr* wildcard, const sockaddr_storage& scoped) {
  sockaddr_storage address{};
  if (wildcard->sa_family == AF_INET) {
    if (scoped.ss_family != AF_INET) return std::nullopt;
    auto& v4 = reinterpret_cast<sockaddr_in&>(address);
    v4 = reinterpret_cast<const sockaddr_in&>(scoped);
    v4.sin_port = reinterpret_cast<const sockaddr_in*>(wildcard)->sin_port;
    return address;
  }
  auto& v6 = reinterpret_cast<sockaddr_in6&>(address);
  if (scoped.ss_family == AF_INET6) {
    v6 = reinterpret_cast<const sockaddr_in6&>(scoped);
  } else {
    v6.sin6_family = AF_INET6;
    v6.sin6_addr.s6_addr[10] = 0xff;
    v6.sin6_addr.s6_addr[11] = 0xff;
    std::memcpy(&v6.sin6_addr.s6_addr[12], &reinterpret_cast<const sockaddr_in&>(scoped).sin_addr,
                4);
  }
  v6.sin6_port = reinterpret_cast<const sockaddr_in6*>(wildcard)->sin6_port;
  return address;
}

}  // namespace
}  // namespace runner::distributed

// The C library's bind, for every library of this process; see bind_address.hpp. Outside a
// scope, and for any address but the wildcard, it is the C library's own. (Its parameters are
// named here as runner names things; glibc's declaration uses reserved names.)
// NOLINTNEXTLINE(readability-inconsistent-declaration-parameter-name)
extern "C" int bind(int fd, const sockaddr* address, socklen_t length) noexcept {
  using Bind = int (*)(int, const sockaddr*, socklen_t);
  static const auto real_bind = reinterpret_cast<Bind>(dlsym(RTLD_NEXT, "bind"));
  const sockaddr_storage* scoped = runner::distributed::scoped_address;
  if (!scoped || !address || !runner::distributed::is_wildcard(address))
    return real_bind(fd, address, length);
  const auto rewritten = runner::distributed::in_scope(address, *scoped);
  if (!rewritten) {
    errno = EADDRNOTAVAIL;
    return -1;
  }
  return real_bind(fd, reinterpret_cast<const sockaddr*>(&*rewritten), length);
}
