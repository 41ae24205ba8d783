// runner's own lock on a results file while a process writes it, apart from HDF5's lock.
//
// HDF5's lock alone does not keep two writers apart: HDF5_USE_FILE_LOCKING=FALSE (or a file
// system without locks) turns it off, and two writers then overwrite each other's metadata,
// losing every run in the file. So a writer first takes an exclusive flock(2) on a side file,
// "<results file>.lock", which no environment setting changes.
//
// Why a side file and flock: HDF5 with its own locking on flocks the results file itself from
// its own descriptor, so a flock of ours on the results file would refuse HDF5's open in this
// very process. fcntl(2) locks belong to the process and go when it closes any descriptor of
// the file, which HDF5 does on every open and close (H5Fis_hdf5, a read in-process); on NFS,
// flock is emulated with fcntl locks and would go the same way. Nothing but this lock ever
// opens the side file, and a flock lives as long as its open file description: the kernel
// releases it when the writer closes or its process dies, however it dies. The side file is
// never removed: a process that unlinked it could leave a second writer locking a new file
// while a first still holds the old one.
#pragma once

#include <memory>
#include <string>

namespace runner::results::detail {

// One exclusive flock on a results file's side file; released when the last owner lets go.
class WriterLock;

// Locks `results_path` for writing by this process, creating the side file when missing (beside
// the file a symbolic link names); the folder must exist. This process's opens of one file share
// one lock, as HDF5 shares one open file among them; a forked child is another process. Throws
// DataError "<results_path>: another runner process is writing it" when another process holds the
// lock, and a DataError naming the side file when it cannot be created or locked.
std::shared_ptr<const WriterLock> lock_for_writing(const std::string& results_path);

}  // namespace runner::results::detail

namespace runner::results {

// Whether a process (this one included) holds the writers' lock of `results_path` now. A file
// whose lock file cannot be read counts as written: only a lock seen free proves no writer.
bool being_written(const std::string& results_path);

}  // namespace runner::results
