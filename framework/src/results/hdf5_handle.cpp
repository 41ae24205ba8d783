// Owned HDF5 identifiers, HDF5 errors as DataError or NoSpaceLeft, and object paths for messages.
#include "results/hdf5_handle.hpp"

#include <cerrno>
#include <cstring>

#include "runner/errors.hpp"

namespace runner::results::detail {

namespace {

// H5Ewalk2 visits the stack from the innermost error when walking upward: keep that one.
herr_t keep_innermost_reason(unsigned depth, const H5E_error2_t* error, void* reason) {
  if (depth == 0 && error->desc != nullptr) *static_cast<std::string*>(reason) = error->desc;
  return 0;
}

// The errno of a write on the stack that failed with ENOSPC or EFBIG (the sec2 driver's
// "errno = 28, error message = 'No space left on device'"), or 0.
herr_t note_no_space(unsigned /*depth*/, const H5E_error2_t* error, void* found) {
  for (const int reason : {ENOSPC, EFBIG})
    if (error->desc != nullptr && std::strstr(error->desc, std::strerror(reason)) != nullptr)
      *static_cast<int*>(found) = reason;
  return 0;
}

int stack_says_no_space() {
  int found = 0;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, note_no_space, &found);
  return found;
}

}  // namespace

void silence_hdf5_error_printing() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

std::string hdf5_error_reason() {
  std::string reason;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, keep_innermost_reason, &reason);
  H5Eclear2(H5E_DEFAULT);
  return reason;
}

void throw_hdf5_error(const std::string& what) {
  if (const int reason = stack_says_no_space()) {
    H5Eclear2(H5E_DEFAULT);
    throw NoSpaceLeft("the device", reason == EFBIG);
  }
  const std::string reason = hdf5_error_reason();
  throw DataError(reason.empty() ? what : what + ": " + reason);
}

Handle own(hid_t id, Handle::Closer closer, const std::string& what) {
  if (id < 0) throw_hdf5_error(what);
  return Handle(id, closer);
}

void check(herr_t status, const std::string& what) {
  if (status < 0) throw_hdf5_error(what);
}

std::string object_path(hid_t object) {
  const ssize_t length = H5Iget_name(object, nullptr, 0);
  if (length <= 0) return "?";
  std::string path(static_cast<size_t>(length) + 1, '\0');
  H5Iget_name(object, path.data(), path.size());
  path.resize(static_cast<size_t>(length));
  return path;
}

std::string member_path(hid_t parent, const std::string& name) {
  const std::string parent_path = object_path(parent);
  return (parent_path == "/" ? "" : parent_path) + "/" + name;
}

}  // namespace runner::results::detail
