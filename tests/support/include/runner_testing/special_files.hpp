// A socket's file at a path, for tests of commands given a path that is no regular file.
#pragma once

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <string>

namespace runner::testing {

// The socket's file stays after its descriptor closes. False where it could not be made.
inline bool make_socket_file(const std::string& path) {
  sockaddr_un address{};
  if (path.size() >= sizeof address.sun_path) return false;
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0) return false;
  address.sun_family = AF_UNIX;
  std::strcpy(address.sun_path, path.c_str());
  const bool bound = bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  close(fd);
  return bound;
}

}  // namespace runner::testing
