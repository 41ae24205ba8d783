// The kernel's tables of this machine's IPv4 and IPv6 TCP sockets (/proc/net/tcp, tcp6), read
// by tests of where the store and Gloo listen and connect.
#pragma once

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace runner::testing {

// One socket's row: addresses as the kernel writes them ("0100007F:1F90" is 127.0.0.1:8080).
struct TcpSocket {
  std::string local_address, local_port, state;  // state "0A": listening
};

inline std::vector<TcpSocket> tcp_sockets() {
  std::vector<TcpSocket> sockets;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);  // the column names
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state;
      fields >> slot >> local >> remote >> state;
      const size_t colon = local.find(':');
      sockets.push_back({local.substr(0, colon), local.substr(colon + 1), state});
    }
  }
  return sockets;
}

// The local addresses ("0100007F" is 127.0.0.1) of the sockets listening on `port`.
inline std::vector<std::string> listening_addresses(int port) {
  char hex_port[8];
  std::snprintf(hex_port, sizeof hex_port, "%04X", port);
  std::vector<std::string> addresses;
  for (const TcpSocket& socket : tcp_sockets())
    if (socket.state == "0A" && socket.local_port == hex_port)
      addresses.push_back(socket.local_address);
  return addresses;
}

// How many sockets, in any state, have the local IPv4 address `hex_address` ("0700007F").
inline int sockets_bound_to(const std::string& hex_address) {
  int count = 0;
  for (const TcpSocket& socket : tcp_sockets())
    count += socket.local_address == hex_address ||
             socket.local_address == "0000000000000000FFFF0000" + hex_address;
  return count;
}

}  // namespace runner::testing
