// Opening and creating results files: the root's format attributes, creation order, flushing.
#pragma once

#include <string>
#include <utility>

#include "results/hdf5_handle.hpp"
#include "runner/errors.hpp"

namespace runner::results::detail {

// Creates the file (and its folder) when missing, else opens it for writing after checking
// it is a runner results file of this version (kFormatVersion).
Handle open_for_append(const std::string& path);

// Opens an existing runner results file read-only: any version from kOldestReadableVersion.
Handle open_for_reading(const std::string& path);

// Writes everything HDF5 holds in memory for the file of `object`: after it, a process killed
// at any moment leaves a file every reader opens.
void flush_file(hid_t object);

// Runs `action`, prefixing the message of a DataError it throws with "<context>: ". The
// helpers deep down only know paths inside the file; callers add the file and the run.
template <typename Action>
auto with_context(const std::string& context, Action&& action) {
  try {
    return std::forward<Action>(action)();
  } catch (const NoSpaceLeft&) {
    throw NoSpaceLeft(context);
  } catch (const DataError& error) {
    throw DataError(context + ": " + error.what(), error.hint());
  }
}

}  // namespace runner::results::detail
