// The flock on a results file's side file that keeps a second writer out.
#include "results/writer_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <utility>

#include "runner/errors.hpp"

namespace runner::results::detail {

class WriterLock {
 public:
  explicit WriterLock(int descriptor) : descriptor_(descriptor), owner_(getpid()) {}
  WriterLock(const WriterLock&) = delete;
  WriterLock& operator=(const WriterLock&) = delete;
  // Closing the only descriptor of its open file description releases the flock.
  ~WriterLock() { close(descriptor_); }

  // A forked child inherits the parent's locks in memory but is another writer.
  bool held_by_this_process() const { return owner_ == getpid(); }

 private:
  int descriptor_;
  pid_t owner_;
};

namespace {

using FileId = std::pair<dev_t, ino_t>;

// This process's locks, by their side file. Looked up by stat(2), never by opening the side
// file again: closing a second descriptor would drop an fcntl-emulated flock (NFS).
struct HeldLocks {
  std::mutex mutex;
  std::map<FileId, std::weak_ptr<const WriterLock>> by_file;
};

HeldLocks& held_locks() {
  static HeldLocks locks;
  return locks;
}

std::shared_ptr<const WriterLock> lock_held_here(const HeldLocks& locks,
                                                 const std::string& lock_path) {
  struct stat status {};
  if (stat(lock_path.c_str(), &status) != 0) return nullptr;
  const auto found = locks.by_file.find({status.st_dev, status.st_ino});
  if (found == locks.by_file.end()) return nullptr;
  std::shared_ptr<const WriterLock> lock = found->second.lock();
  return lock && lock->held_by_this_process() ? lock : nullptr;
}

// Read and write access: NFS emulates an exclusive flock with a write lock, which needs it.
int open_lock_file(const std::string& lock_path, const std::string& results_path) {
  const int descriptor = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (descriptor < 0)
    throw DataError("cannot create or open the lock file " + lock_path + " of results file " +
                        results_path + ": " + std::strerror(errno),
                    "runner writes a results file only where it may create its lock file "
                    "beside it; name another results file with [experiment] results");
  return descriptor;
}

// Without blocking: a second writer fails at once rather than waiting for a whole sweep.
void take_flock(int descriptor, const std::string& lock_path, const std::string& results_path) {
  if (flock(descriptor, LOCK_EX | LOCK_NB) == 0) return;
  const int error = errno;
  close(descriptor);
  if (error == EWOULDBLOCK)
    throw DataError(results_path + ": another runner process is writing it",
                    "wait for it to finish, or name another results file with [experiment] "
                    "results; runner report reads the file meanwhile");
  throw DataError(
      "cannot lock " + lock_path + " of results file " + results_path + ": " + std::strerror(error),
      "its file system may not support flock (a mount option): name a results file "
      "on another one with [experiment] results");
}

FileId file_id(int descriptor) {
  struct stat status {};
  fstat(descriptor, &status);
  return {status.st_dev, status.st_ino};
}

// Beside the file a symbolic link names: two links to one results file share its lock.
std::string lock_file_path(const std::string& results_path) {
  std::error_code error;
  const std::filesystem::path real = std::filesystem::weakly_canonical(results_path, error);
  return (error ? results_path : real.string()) + ".lock";
}

}  // namespace

std::shared_ptr<const WriterLock> lock_for_writing(const std::string& results_path) {
  const std::string lock_path = lock_file_path(results_path);
  HeldLocks& locks = held_locks();
  const std::lock_guard<std::mutex> guard(locks.mutex);
  if (std::shared_ptr<const WriterLock> shared = lock_held_here(locks, lock_path)) return shared;
  const int descriptor = open_lock_file(lock_path, results_path);
  take_flock(descriptor, lock_path, results_path);
  auto lock = std::make_shared<const WriterLock>(descriptor);
  locks.by_file[file_id(descriptor)] = lock;
  return lock;
}

}  // namespace runner::results::detail

namespace runner::results {

bool being_written(const std::string& results_path) {
  using namespace detail;
  const std::string lock_path = lock_file_path(results_path);
  HeldLocks& locks = held_locks();
  const std::lock_guard<std::mutex> guard(locks.mutex);
  // Never a second descriptor here: closing it would drop this process's own emulated flock.
  if (lock_held_here(locks, lock_path)) return true;
  const int descriptor = open(lock_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (descriptor < 0) return errno != ENOENT;  // no lock file: no writer since locks began
  const bool held = flock(descriptor, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  close(descriptor);
  return held;
}

}  // namespace runner::results
