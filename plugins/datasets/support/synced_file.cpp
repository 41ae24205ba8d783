// SyncedFile: fopen, fwrite, then fflush, fsync and fclose, each failure told by errno.
#include "synced_file.hpp"

#include <unistd.h>
#include <runner/errors.hpp>

#include <cerrno>
#include <cstring>

namespace runner::datasets {

SyncedFile::SyncedFile(const std::filesystem::path& path)
    : path_(path), file_(std::fopen(path.c_str(), "wb")) {
  if (!file_)
    throw runner::DataError(path_.string() + ": cannot create: " + std::strerror(errno),
                            "data_dir must be a folder you can write to");
}

SyncedFile::~SyncedFile() {
  if (file_) std::fclose(file_);
}

void SyncedFile::write(const char* bytes, size_t count) {
  if (std::fwrite(bytes, 1, count, file_) != count)
    throw runner::DataError(path_.string() + ": cannot write: " + std::strerror(errno),
                            "data_dir must be a folder you can write to, with room for the data");
}

std::string SyncedFile::close() {
  bool written = std::fflush(file_) == 0 && ::fsync(::fileno(file_)) == 0;
  int error = written ? 0 : errno;
  if (std::fclose(file_) != 0 && error == 0) error = errno;
  file_ = nullptr;
  return error == 0 ? std::string() : std::strerror(error);
}

}  // namespace runner::datasets
