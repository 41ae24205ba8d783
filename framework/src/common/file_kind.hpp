// What a path the user named is when it is no regular file, in words for a one-line refusal.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "runner/errors.hpp"

namespace runner {

// "a folder", "a FIFO", ...: the type of something that is no regular file.
inline std::string file_type_name(std::filesystem::file_type type) {
  namespace fs = std::filesystem;
  switch (type) {
    case fs::file_type::directory: return "a folder";
    case fs::file_type::fifo: return "a FIFO";
    case fs::file_type::character: return "a character device";
    case fs::file_type::block: return "a block device";
    case fs::file_type::socket: return "a socket";
    default: return "no regular file";
  }
}

// Where `path` exists (after symbolic links) and is no regular file: its type in words. Asked
// before anything opens the path: opening a FIFO waits for a writer.
inline std::optional<std::string> special_file_type(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (error || status.type() == fs::file_type::not_found || status.type() == fs::file_type::regular)
    return std::nullopt;
  return file_type_name(status.type());
}

// Throws a DataError where `path` exists and is no regular file, before anything opens it:
// "<path>: is a FIFO, not <what>".
inline void refuse_special_input(const std::string& path, const std::string& what) {
  if (const auto type = special_file_type(path))
    throw DataError(path + ": is " + *type + ", not " + what);
}

// Where `path` is a symbolic link whose target does not exist: that target.
inline std::optional<std::string> dangling_link_target(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::is_symlink(fs::symlink_status(path, error)) || fs::exists(path, error))
    return std::nullopt;
  return fs::read_symlink(path, error).string();
}

}  // namespace runner
