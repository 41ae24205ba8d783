// The loopback HTTP server's thread serving fixed files, and ports that refuse or never answer.
#include "loopback_http_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace runner::datasets::testing {
namespace {

constexpr size_t kMaxRequestHead = 8192;

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error(what + ": " + std::strerror(errno));
}

// A TCP socket bound to 127.0.0.1 at a port the kernel picks; sets `port`.
int bind_loopback(uint16_t* port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) fail("socket");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof address;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), length) != 0) fail("bind");
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) fail("getsockname");
  *port = ntohs(address.sin_port);
  return fd;
}

// The request line and headers, up to the blank line that ends them.
std::string read_request_head(int connection) {
  std::string head;
  char chunk[1024];
  while (head.find("\r\n\r\n") == std::string::npos && head.size() < kMaxRequestHead) {
    ssize_t n = ::recv(connection, chunk, sizeof chunk, 0);
    if (n <= 0) break;
    head.append(chunk, static_cast<size_t>(n));
  }
  return head;
}

// "/a/b" of "GET /a/b HTTP/1.1"; empty for anything else.
std::string requested_path(const std::string& head) {
  std::istringstream line(head.substr(0, head.find("\r\n")));
  std::string method;
  std::string path;
  line >> method >> path;
  return method == "GET" ? path : std::string();
}

void send_all(int connection, const std::string& bytes) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    ssize_t n = ::send(connection, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;  // the client hung up; nothing left to tell it
    sent += static_cast<size_t>(n);
  }
}

std::string response(const std::string& status, const std::string& body) {
  return "HTTP/1.0 " + status + "\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n" + body;
}

std::string loopback_url(uint16_t port, const std::string& path) {
  return "http://127.0.0.1:" + std::to_string(port) + path;
}

}  // namespace

LoopbackHttpServer::LoopbackHttpServer(ServedFiles files) : files_(std::move(files)) {
  listener_ = bind_loopback(&port_);
  if (::listen(listener_, 16) != 0) fail("listen");
  thread_ = std::thread([this] { serve(); });
}

LoopbackHttpServer::~LoopbackHttpServer() {
  stopping_ = true;
  ::shutdown(listener_, SHUT_RDWR);  // wakes the blocked accept
  thread_.join();
  ::close(listener_);
}

std::string LoopbackHttpServer::url(const std::string& path) const {
  return loopback_url(port_, path);
}

int LoopbackHttpServer::requests(const std::string& path) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = requests_.find(path);
  return found == requests_.end() ? 0 : found->second;
}

int LoopbackHttpServer::total_requests() const {
  std::lock_guard<std::mutex> lock(mutex_);
  int total = 0;
  for (const auto& [path, count] : requests_) total += count;
  return total;
}

void LoopbackHttpServer::serve() {
  while (!stopping_) {
    int connection = ::accept(listener_, nullptr, nullptr);
    if (connection < 0) {
      if (errno == EINTR) continue;
      return;
    }
    answer(connection);
    ::close(connection);
  }
}

void LoopbackHttpServer::answer(int connection) {
  std::string path = requested_path(read_request_head(connection));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++requests_[path];
  }
  auto file = files_.find(path);
  send_all(connection,
           file == files_.end() ? response("404 Not Found", "") : response("200 OK", file->second));
}

UnansweredPort::UnansweredPort(bool listening) {
  socket_ = bind_loopback(&port_);
  if (listening && ::listen(socket_, 16) != 0) fail("listen");
}

UnansweredPort::~UnansweredPort() { ::close(socket_); }

std::string UnansweredPort::url(const std::string& path) const { return loopback_url(port_, path); }

}  // namespace runner::datasets::testing
