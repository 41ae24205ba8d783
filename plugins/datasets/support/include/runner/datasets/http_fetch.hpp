// Fetches one URL into a file with libcurl (HTTP, HTTPS, redirects followed), giving up on a
// server that does not connect or a transfer that stalls.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace runner::datasets {

struct FetchLimits {
  long connect_timeout_s = 15;
  // A transfer slower than low_speed_bytes_per_s for low_speed_time_s seconds is given up.
  long low_speed_bytes_per_s = 1024;
  long low_speed_time_s = 30;
};

// Why one URL could not be fetched, in a few words: "HTTP 404", "cannot connect (Connection
// refused)", "timeout (...)". `unreachable` when no server answered at all (no network, a
// host that does not resolve or connect): the other files of that server will fail alike.
struct FetchError : std::runtime_error {
  explicit FetchError(const std::string& reason, bool unreachable = false)
      : std::runtime_error(reason), unreachable(unreachable) {}
  bool unreachable;
};

// Writes the body of `url` to `path` (created or truncated) and syncs it to the disk. Throws a
// FetchError when the server cannot be reached, answers an HTTP error, or the transfer stalls
// or breaks; a runner::DataError when `path` cannot be created.
void http_fetch(const std::string& url, const std::filesystem::path& path,
                const FetchLimits& limits = {});

}  // namespace runner::datasets
