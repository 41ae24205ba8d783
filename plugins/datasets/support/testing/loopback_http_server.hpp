// Loopback servers for tests that fetch without a network: an HTTP/1.0 server of fixed files,
// and ports that refuse connections or accept them and never answer.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace runner::datasets::testing {

using ServedFiles = std::map<std::string, std::string>;  // path -> bytes

// Serves `files` (path -> bytes) on 127.0.0.1 at a port the kernel picks, 404 for any other
// path, one connection at a time on its own thread, and counts the requests for each path.
class LoopbackHttpServer {
 public:
  explicit LoopbackHttpServer(ServedFiles files);
  ~LoopbackHttpServer();
  LoopbackHttpServer(const LoopbackHttpServer&) = delete;
  LoopbackHttpServer& operator=(const LoopbackHttpServer&) = delete;

  // "http://127.0.0.1:<port>" + path
  std::string url(const std::string& path) const;
  int requests(const std::string& path) const;
  int total_requests() const;

 private:
  void serve();
  void answer(int connection);

  const ServedFiles files_;
  std::map<std::string, int> requests_;
  mutable std::mutex mutex_;
  std::atomic<bool> stopping_{false};
  int listener_ = -1;
  uint16_t port_ = 0;
  std::thread thread_;
};

// A port on 127.0.0.1, held for the object's lifetime, on which nobody answers. Not listening,
// it refuses connections; listening, the kernel completes them and then nothing is sent.
class UnansweredPort {
 public:
  explicit UnansweredPort(bool listening);
  ~UnansweredPort();
  UnansweredPort(const UnansweredPort&) = delete;
  UnansweredPort& operator=(const UnansweredPort&) = delete;

  std::string url(const std::string& path) const;

 private:
  int socket_ = -1;
  uint16_t port_ = 0;
};

}  // namespace runner::datasets::testing
