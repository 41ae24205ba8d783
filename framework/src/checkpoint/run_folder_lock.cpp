// The flock on a run folder's side file that keeps a second trainer of the run out.
#include "checkpoint/run_folder_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "runner/errors.hpp"

namespace runner::checkpoint {

class RunFolderLock {
 public:
  explicit RunFolderLock(int descriptor) : descriptor_(descriptor) {}
  RunFolderLock(const RunFolderLock&) = delete;
  RunFolderLock& operator=(const RunFolderLock&) = delete;
  // Closing the only descriptor of its open file description releases the flock.
  ~RunFolderLock() { close(descriptor_); }

 private:
  int descriptor_;
};

std::shared_ptr<const RunFolderLock> lock_run_folder(const std::string& run_folder) {
  const std::string lock_path = run_folder + ".lock";
  std::error_code error;
  std::filesystem::create_directories(std::filesystem::path(run_folder).parent_path(), error);
  const int descriptor = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (descriptor < 0)
    throw DataError("cannot create the lock file " + lock_path + " of checkpoint folder " +
                        run_folder + ": " + std::strerror(errno),
                    "name a folder runner may write in with [checkpoint] dir");
  if (flock(descriptor, LOCK_EX | LOCK_NB) == 0)
    return std::make_shared<const RunFolderLock>(descriptor);
  const int failure = errno;
  close(descriptor);
  if (failure == EWOULDBLOCK)
    throw DataError(run_folder + ": another runner process is training this run into it",
                    "wait for it to finish, or give this one another [checkpoint] dir");
  throw DataError("cannot lock " + lock_path + " of checkpoint folder " + run_folder + ": " +
                  std::strerror(failure));
}

}  // namespace runner::checkpoint
