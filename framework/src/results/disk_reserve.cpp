// Reserving a write's bytes past a results file's end with fallocate; NoSpaceLeft on a full disk
// or past the file-size limit.
#include "results/disk_reserve.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "results/hdf5_handle.hpp"

namespace runner::results::detail {
namespace {

// HDF5 grows a series a chunk at a time (64 epochs, 1024 steps, 8 bytes a field) and adds
// B-tree nodes and heap blocks of a few KiB: this covers one write's metadata and chunks.
constexpr uint64_t kMarginBytes = uint64_t{64} * 1024;
// A step or epoch record's fields, 8 bytes each, and a share of the index that finds them.
constexpr uint64_t kBytesPerRecord = 256;

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

uint64_t bytes_for_records(uint64_t records) { return kMarginBytes + records * kBytesPerRecord; }

void reserve_disk_space(const std::string& path, uint64_t bytes) {
  const Fd file(open(path.c_str(), O_WRONLY | O_CLOEXEC));
  struct stat status {};
  if (file.get() < 0 || fstat(file.get(), &status) != 0) return;  // HDF5 reports it
  // fallocate past the file-size limit succeeds (the size stays), and HDF5's write there would
  // fail after its superblock already counts the bytes: a file no reader opens.
  rlimit limit{};
  if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      static_cast<uint64_t>(status.st_size) + bytes > limit.rlim_cur)
    throw NoSpaceLeft(path, true);
  if (fallocate(file.get(), FALLOC_FL_KEEP_SIZE, status.st_size, static_cast<off_t>(bytes)) == 0)
    return;
  if (errno == ENOSPC || errno == EDQUOT || errno == EFBIG) throw NoSpaceLeft(path, errno == EFBIG);
}

}  // namespace runner::results::detail
