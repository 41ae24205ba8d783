// The time now as the results file, checkpoints and pages write it: ISO 8601 in UTC.
#pragma once

#include <chrono>
#include <ctime>
#include <string>

namespace runner {

// "2024-01-31T23:59:59Z".
inline std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[sizeof "2024-01-31T23:59:59Z"];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace runner
