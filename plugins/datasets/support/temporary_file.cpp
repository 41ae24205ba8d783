// TemporaryFile: a name unique to the process and the call, removed unless renamed.
#include <runner/datasets/temporary_file.hpp>

#include <unistd.h>
#include <runner/errors.hpp>

#include <atomic>
#include <string>
#include <system_error>

namespace runner::datasets {
namespace {

std::filesystem::path unique_part_name(const std::filesystem::path& target) {
  static std::atomic<unsigned> calls{0};
  return target.parent_path() /
         ("." + target.filename().string() + "." + std::to_string(::getpid()) + "-" +
          std::to_string(calls++) + ".part");
}

}  // namespace

TemporaryFile::TemporaryFile(const std::filesystem::path& target)
    : path_(unique_part_name(target)) {}

TemporaryFile::~TemporaryFile() {
  std::error_code ignored;
  if (!renamed_) std::filesystem::remove(path_, ignored);
}

void TemporaryFile::rename_to(const std::filesystem::path& target) {
  std::error_code error;
  std::filesystem::rename(path_, target, error);
  if (error)
    throw runner::DataError(
        "cannot rename " + path_.string() + " to " + target.string() + ": " + error.message(),
        "data_dir must be a folder you can write to");
  renamed_ = true;
}

}  // namespace runner::datasets
