// A run folder's lock while a process trains into it: two runners given one [checkpoint] dir
// and the same run would otherwise write their steps into one folder, each pruning the other's.
//
// An exclusive flock(2) on "<run folder>.lock" beside the folder (not in it: a run folder made
// before the run starts would hide a folder of the run's earlier id, see settings.hpp), held
// until the process lets go or dies, however it dies. Local ranks the process starts write
// shards into the folder under its lock. The side file is never removed, for the reason
// results/writer_lock.hpp gives.
#pragma once

#include <memory>
#include <string>

namespace runner::checkpoint {

class RunFolderLock;

// Locks `run_folder` for this process, creating its parent folder and the side file when
// missing. Throws DataError "<run_folder>: another runner process is training this run into
// it" when another process holds it, and a DataError naming the side file when it cannot be
// created or locked.
std::shared_ptr<const RunFolderLock> lock_run_folder(const std::string& run_folder);

}  // namespace runner::checkpoint
