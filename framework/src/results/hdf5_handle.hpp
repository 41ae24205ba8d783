// RAII ownership of HDF5 identifiers, and turning HDF5's failures into DataError.
#pragma once

#include <hdf5.h>

#include "runner/errors.hpp"

#include <string>
#include <utility>

namespace runner::results::detail {

// Owns one HDF5 identifier and releases it with the H5?close function matching its kind.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);

  Handle() = default;
  Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  Handle(Handle&& other) noexcept
      : id_(std::exchange(other.id_, kInvalid)), closer_(other.closer_) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      release();
      id_ = std::exchange(other.id_, kInvalid);
      closer_ = other.closer_;
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { release(); }

  hid_t get() const { return id_; }

 private:
  static constexpr hid_t kInvalid = -1;

  void release() {
    if (id_ >= 0) closer_(id_);
    id_ = kInvalid;
  }

  hid_t id_ = kInvalid;
  Closer closer_ = nullptr;
};

// A write that failed for want of disk space, or past the process's file-size limit (EFBIG,
// `ulimit -f`). HDF5's own reason for it is the last of a chain of failures (a later flush says
// "slist already enabled?"); with_context() names the file.
struct NoSpaceLeft : DataError {
  explicit NoSpaceLeft(const std::string& file, bool size_limit = false)
      : DataError(size_limit ? "the file size limit (ulimit -f) stops the writing of " + file
                             : "no space left on " + file,
                  size_limit ? "raise the limit (ulimit -f), or name a file with [experiment] "
                               "results; the epochs flushed before are in the file"
                             : "free space on its disk, or name another file with [experiment] "
                               "results; the epochs flushed before the disk filled are in the "
                               "file"),
        size_limit(size_limit) {}
  bool size_limit;
};

// HDF5 prints its error stack to stderr by default; runner reports errors itself. The
// setting is per thread (Debian's HDF5 is thread-safe): call it in every entry point.
void silence_hdf5_error_printing();

// The innermost reason on HDF5's error stack (e.g. "file signature not found"), or "".
std::string hdf5_error_reason();

// Throws DataError "<what>: <HDF5's reason>", or NoSpaceLeft when a write found the disk full
// or the file at the size limit.
[[noreturn]] void throw_hdf5_error(const std::string& what);

// Takes ownership of an identifier an HDF5 call returned, throwing when the call failed.
Handle own(hid_t id, Handle::Closer closer, const std::string& what);

// Throws when an HDF5 call that returns herr_t (or htri_t) failed.
void check(herr_t status, const std::string& what);

// The object's path in its file ("/run-1/epochs"), for error messages.
std::string object_path(hid_t object);

// The path of `name` inside `parent` ("/run-1/epochs/epoch"), for error messages.
std::string member_path(hid_t parent, const std::string& name);

}  // namespace runner::results::detail
