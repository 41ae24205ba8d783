// A file written from its start and synced to the disk when closed, so that a file renamed into
// place afterwards never lacks its bytes after a crash. Private to the support library.
#pragma once

#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <string>

namespace runner::datasets {

class SyncedFile {
 public:
  // Creates or truncates `path`. Throws a runner::DataError naming it when it cannot be created.
  explicit SyncedFile(const std::filesystem::path& path);
  // Closes, without syncing, a file that close() did not: the caller gave it up.
  ~SyncedFile();
  SyncedFile(const SyncedFile&) = delete;
  SyncedFile& operator=(const SyncedFile&) = delete;

  FILE* get() const { return file_; }

  // Throws a runner::DataError naming the file when the bytes cannot be written.
  void write(const char* bytes, size_t count);

  // Flushes, syncs and closes. Returns why that failed ("No space left on device"), or an empty
  // text when it did not.
  std::string close();

 private:
  std::filesystem::path path_;
  FILE* file_;
};

}  // namespace runner::datasets
