// The mirror loop: each base URL in turn, each copy MD5-checked, every failure kept with its URL.
#include <runner/datasets/mirrors.hpp>

#include <runner/datasets/md5.hpp>
#include <runner/errors.hpp>

#include <algorithm>

namespace runner::datasets {

std::string mirror_url(const std::string& mirror, const std::string& file_name) {
  return !mirror.empty() && mirror.back() == '/' ? mirror + file_name : mirror + "/" + file_name;
}

void fetch_verified(const std::string& url, const std::filesystem::path& into,
                    const std::string& md5, const FetchLimits& limits) {
  http_fetch(url, into, limits);
  std::string got = md5_hex_of_file(into);
  if (got != md5) throw FetchError("MD5 mismatch: expected " + md5 + ", got " + got);
}

MirrorFetch fetch_from_mirrors(const std::vector<std::string>& mirrors,
                               const std::string& file_name, const std::string& md5,
                               const std::filesystem::path& into, const FetchLimits& limits) {
  MirrorFetch result;
  for (const std::string& mirror : mirrors) {
    std::string url = mirror_url(mirror, file_name);
    try {
      fetch_verified(url, into, md5, limits);
      result.url = url;
      return result;
    } catch (const FetchError& e) {
      result.failures.push_back({url, e.what(), e.unreachable});
    }
  }
  return result;
}

bool all_unreachable(const std::vector<FailedAttempt>& failures) {
  return std::all_of(failures.begin(), failures.end(),
                     [](const FailedAttempt& failure) { return failure.unreachable; });
}

std::string attempts_text(const std::vector<FailedAttempt>& failures) {
  std::string text;
  for (const FailedAttempt& failure : failures)
    text += (text.empty() ? "" : "; ") + failure.url + ": " + failure.reason;
  return text;
}

std::vector<std::string> checked_mirrors(const runner::Options& options, const std::string& key,
                                         const std::string& hint) {
  const std::vector<std::string>& mirrors = options.get_strings(key);
  bool has_empty = std::any_of(mirrors.begin(), mirrors.end(),
                               [](const std::string& url) { return url.empty(); });
  if (mirrors.empty() || has_empty)
    throw runner::ConfigError(
        "[" + options.section() + "] " + key + (has_empty ? " holds an empty URL" : " is empty"),
        hint);
  return mirrors;
}

}  // namespace runner::datasets
