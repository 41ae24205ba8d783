// Paths a command writes where the user named them: refused before anything is written when
// they are one of the command's inputs or hold something else, and written whole or not at all.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/file_kind.hpp"
#include "runner/errors.hpp"

namespace runner {

// A path the command reads, and how a refusal calls it ("the results file this report reads").
struct NamedInput {
  std::string path;
  std::string role;
};

// A file the command is about to write, as the user named it.
struct OutputFile {
  std::string option;  // how it was named: "--csv", "--out", "--write"
  std::string path;
  std::vector<NamedInput> inputs;  // a file or folder among them is never written over
  bool force = false;              // --force: replace a file of another kind
  // Whether an existing regular file holds what the command writes (an earlier CSV of the
  // same command): such a file is replaced without --force.
  std::function<bool(const std::string& path)> holds_own_kind;
  bool force_offered = true;  // the command takes --force, so a refusal may suggest it
};

namespace output_detail {

inline std::optional<struct stat> status_of(const std::string& path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) return std::nullopt;
  return status;
}

// The same file or folder, also when one path reaches it through a symbolic link.
inline bool same_file(const std::string& a, const std::string& b) {
  const auto first = status_of(a);
  const auto second = status_of(b);
  return first && second && first->st_dev == second->st_dev && first->st_ino == second->st_ino;
}

inline std::string parent_of(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

// HDF5's signature at the start of the file, where every results file has it.
inline bool has_hdf5_signature(const std::string& path) {
  static const char kSignature[8] = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};
  char start[8] = {};
  std::ifstream in(path, std::ios::binary);
  return in.read(start, sizeof start) && std::memcmp(start, kSignature, sizeof start) == 0;
}

inline bool holds_manifest(const std::string& folder) {
  std::error_code error;
  return std::filesystem::is_regular_file(std::filesystem::path(folder) / "manifest.json", error);
}

[[noreturn]] inline void refuse(const OutputFile& target, const std::string& why,
                                const std::string& hint) {
  throw ConfigError(target.option + " " + target.path + ": " + why, hint);
}

inline void refuse_an_input(const OutputFile& target) {
  for (const NamedInput& input : target.inputs) {
    if (same_file(target.path, input.path))
      refuse(target, "is " + input.role + "; name another file", "");
    std::error_code error;
    if (std::filesystem::is_directory(input.path, error) &&
        same_file(parent_of(target.path), input.path))
      refuse(target, "is in " + input.path + ", " + input.role + "; name a file outside it", "");
  }
}

// What an existing regular file is when it belongs to something else than the command: a
// results file or a checkpoint's file, whatever else it may look like.
inline std::optional<std::string> foreign_kind(const std::string& path) {
  if (has_hdf5_signature(path)) return "a results file (HDF5)";
  if (holds_manifest(parent_of(path))) return "a file of the checkpoint " + parent_of(path);
  return std::nullopt;
}

}  // namespace output_detail

// Throws a ConfigError naming the option and the path when `target` may not be written: it is
// (or is in) one of the inputs; it is a folder, FIFO, socket or device, or a link to nothing;
// it is a file of another kind (a results file, a checkpoint's, any other) and no --force.
inline void check_output_file(const OutputFile& target) {
  namespace detail = output_detail;
  detail::refuse_an_input(target);
  if (const auto link = dangling_link_target(target.path))
    detail::refuse(target, "is a symbolic link to " + *link + ", which does not exist",
                   "remove the link, or name another file");
  if (const auto type = special_file_type(target.path))
    detail::refuse(target, "is " + *type + ", not a file to write", "name a file");
  std::error_code error;
  if (!std::filesystem::exists(target.path, error) || target.force) return;
  const std::string hint = target.force_offered ? "name another file, or add --force to replace it"
                                                : "name another file";
  if (const auto kind = detail::foreign_kind(target.path))
    detail::refuse(target, "is " + *kind, hint);
  if (target.holds_own_kind && target.holds_own_kind(target.path)) return;
  detail::refuse(target, "is a file that is not what this command writes", hint);
}

// Throws a ConfigError when the folder a command writes into exists and is no folder (a file,
// a FIFO, a device, a link to nothing), or is a checkpoint's own folder.
inline void check_output_folder(const std::string& option, const std::string& folder) {
  const OutputFile target{option, folder, {}, false, nullptr};
  if (const auto link = dangling_link_target(folder))
    output_detail::refuse(target, "is a symbolic link to " + *link + ", which does not exist",
                          "remove the link, or name another folder");
  std::error_code error;
  const auto status = std::filesystem::status(folder, error);
  if (status.type() == std::filesystem::file_type::not_found) return;
  if (status.type() == std::filesystem::file_type::directory) {
    if (output_detail::holds_manifest(folder))
      output_detail::refuse(target, "is a checkpoint's folder, not one to write into",
                            "name another folder");
    return;
  }
  const std::string kind =
      status.type() == std::filesystem::file_type::regular
          ? (output_detail::has_hdf5_signature(folder) ? "a results file (HDF5)" : "a file")
          : file_type_name(status.type());
  output_detail::refuse(target, "is " + kind + ", not a folder", "name a folder");
}

namespace output_detail {

[[noreturn]] inline void fail_to_write(const std::string& path, int error) {
  if (error == ENOSPC || error == EDQUOT)
    throw DataError("no space left on " + path, "free space on its disk, or name another file");
  if (error == EFBIG)
    throw DataError("the file size limit (ulimit -f) stops the writing of " + path,
                    "raise the limit (ulimit -f)");
  throw DataError("cannot write " + path + ": " + std::strerror(error),
                  "name a file in a folder that exists and can be written");
}

// Where the bytes go: through a symbolic link to the file it names, so the link stays.
inline std::string written_path(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_symlink(std::filesystem::symlink_status(path, error))) return path;
  const std::filesystem::path resolved = std::filesystem::canonical(path, error);
  return error ? path : resolved.string();
}

inline bool write_all(int fd, const std::string& bytes) {
  const char* at = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    const ssize_t written = ::write(fd, at, left);
    if (written < 0 && errno == EINTR) continue;
    if (written == 0) errno = EIO;
    if (written <= 0) return false;
    at += written;
    left -= static_cast<size_t>(written);
  }
  return true;
}

// An existing file keeps its permissions; a new one is readable by all, as an open would make it
// under the usual umask.
inline mode_t mode_for(const std::string& path) {
  const auto status = status_of(path);
  return status ? (status->st_mode & 07777) : 0644;
}

}  // namespace output_detail

// Writes `bytes` to `path` through a temporary file beside it, synced, then renamed over it: an
// interrupted or failed write leaves the old file whole. Throws a DataError naming `path` when
// a write, the sync, the close or the rename fails ("no space left on" for a full disk).
inline void write_file_whole(const std::string& path, const std::string& bytes) {
  namespace detail = output_detail;
  const std::string target = detail::written_path(path);
  const std::filesystem::path place(target);
  std::string temporary =
      (place.parent_path() / ("." + place.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkstemp(temporary.data());
  if (fd < 0) detail::fail_to_write(path, errno);
  int error = 0;
  if (::fchmod(fd, detail::mode_for(target)) != 0 || !detail::write_all(fd, bytes) ||
      ::fsync(fd) != 0)
    error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && std::rename(temporary.c_str(), target.c_str()) != 0) error = errno;
  if (error == 0) return;
  ::unlink(temporary.c_str());
  detail::fail_to_write(path, error);
}

}  // namespace runner
