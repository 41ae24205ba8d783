// The experiment file's text, read only from a regular file of a sane size: a FIFO blocked the
// open forever, and /dev/zero was read until the memory ran out.
#pragma once

#include <cstdint>
#include <string>

namespace runner::config {

// Far above any real experiment file (a large sweep is a few kilobytes).
inline constexpr std::uintmax_t kMaxExperimentFileBytes = std::uintmax_t{16} << 20;

// The text of `path`. Throws ConfigError "<path>: <what is wrong>" when the path does not
// exist, is no regular file ("is a FIFO, not a file"), is larger than kMaxExperimentFileBytes
// or cannot be read. The type and size are checked before the file is opened.
std::string read_experiment_file(const std::string& path);

}  // namespace runner::config
