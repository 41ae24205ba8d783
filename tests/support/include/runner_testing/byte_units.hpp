// Byte units for the expected values of memory tests.
#pragma once

namespace runner::testing {

inline constexpr double kMiB = 1024.0 * 1024;
inline constexpr double kGiB = 1024.0 * 1024 * 1024;

}  // namespace runner::testing
