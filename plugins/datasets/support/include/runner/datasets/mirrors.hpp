// One file fetched from the first of a list of mirrors (base URLs) that serves it with the
// expected MD5, why each other mirror failed, and the key that lists the mirrors.
#pragma once

#include <runner/datasets/http_fetch.hpp>
#include <runner/options.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace runner::datasets {

struct FailedAttempt {
  std::string url;
  std::string reason;        // "HTTP 404", "MD5 mismatch: expected ..., got ...", ...
  bool unreachable = false;  // no answer from the server: the network may be down
};

struct MirrorFetch {
  std::string url;                      // the URL that served the file; empty when none did
  std::vector<FailedAttempt> failures;  // why each mirror tried before it (or every one) failed
  bool fetched() const { return !url.empty(); }
};

// `mirror` and `file_name` joined by a '/', which the mirror may end with already.
std::string mirror_url(const std::string& mirror, const std::string& file_name);

// Writes `url` to `into` and checks its MD5 (`md5` in lower case). Throws a FetchError when the
// URL fails or serves bytes of another MD5 ("MD5 mismatch: expected <md5>, got <sum>").
void fetch_verified(const std::string& url, const std::filesystem::path& into,
                    const std::string& md5, const FetchLimits& limits);

// fetch_verified from <mirror>/<file_name> for each mirror in turn, until one serves the file.
// `into` is written over at each try; the caller renames it into place when fetched (a
// TemporaryFile's path). Throws a runner::DataError only when `into` cannot be created.
MirrorFetch fetch_from_mirrors(const std::vector<std::string>& mirrors,
                               const std::string& file_name, const std::string& md5,
                               const std::filesystem::path& into, const FetchLimits& limits);

// True when no server of `failures` answered at all (none: true).
bool all_unreachable(const std::vector<FailedAttempt>& failures);

// "<url>: <reason>; <url>: <reason>", one line.
std::string attempts_text(const std::vector<FailedAttempt>& failures);

// The value of a key that lists base URLs. Throws a runner::ConfigError naming the key, with
// `hint`, when the list is empty or holds an empty URL.
std::vector<std::string> checked_mirrors(const runner::Options& options, const std::string& key,
                                         const std::string& hint);

}  // namespace runner::datasets
