// A hidden file beside the one it will become, renamed into place only when whole: a download
// or an extraction that fails or is killed never leaves part of a file under the real name.
#pragma once

#include <filesystem>

namespace runner::datasets {

// `.<name>.<pid>-<n>.part` in the target's folder, named for this process and object so that
// concurrent writers never share one; removed on destruction unless it was renamed into place.
// The object only names the file: the caller creates and writes it.
class TemporaryFile {
 public:
  explicit TemporaryFile(const std::filesystem::path& target);
  ~TemporaryFile();
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

  const std::filesystem::path& path() const { return path_; }

  // Atomic: a reader of `target` sees the old file or the whole new one. Throws a
  // runner::DataError naming both paths when the rename fails.
  void rename_to(const std::filesystem::path& target);

 private:
  std::filesystem::path path_;
  bool renamed_ = false;
};

}  // namespace runner::datasets
