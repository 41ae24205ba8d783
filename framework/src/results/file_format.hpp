// Opening and creating results files: the root's format attributes, creation order, flushing.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "results/hdf5_handle.hpp"
#include "results/writer_lock.hpp"
#include "runner/errors.hpp"

namespace runner::results::detail {

// A results file open for writing, and this process's lock on it (writer_lock.hpp). Whatever
// keeps an HDF5 object of the file open holds the lock too: declared first, it is released
// after the file has been closed.
struct WritableFile {
  std::shared_ptr<const WriterLock> lock;
  Handle file;
};

// Locks the file for writing, then creates it (and its folder) when missing, else opens it
// for writing after checking it is a runner results file of this version (kFormatVersion).
// Throws DataError when another runner process is writing it, before touching the file.
WritableFile open_for_append(const std::string& path);

// Opens an existing runner results file read-only: any version from kOldestReadableVersion.
// It reads while a writer has the file open, without the writer's lock (a reader sees what
// the writer last flushed) and without HDF5's lock, which a writer holds for a whole run.
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
  } catch (const NoSpaceLeft& error) {
    throw NoSpaceLeft(context, error.size_limit);
  } catch (const DataError& error) {
    throw DataError(context + ": " + error.what(), error.hint());
  }
}

}  // namespace runner::results::detail
