// Room on the disk for a results file's next write, taken before HDF5 writes anything. HDF5
// rewrites its metadata in place: a flush that a full disk cuts short leaves a file whose
// superblock points past its end, and every epoch in it is lost to readers. Reserving first
// turns a full disk into a clean error with the file as the last flush left it.
#pragma once

#include <cstdint>
#include <string>

namespace runner::results::detail {

// Room for a write of about `records` series records (of steps or epochs), with a margin for
// HDF5's metadata and chunk allocations.
uint64_t bytes_for_records(uint64_t records);

// Room for a few attributes (a run's status): they go in the run group's object header.
inline constexpr uint64_t kBytesForAttributes = uint64_t{8} * 1024;

// Allocates `bytes` on the disk past the end of the file at `path` without changing its size
// (FALLOC_FL_KEEP_SIZE), so that HDF5's next writes land in blocks that exist. Throws
// NoSpaceLeft naming the file when the disk (or the user's quota) has no room, or the bytes would
// take it past the process's file-size limit (RLIMIT_FSIZE); on a file system
// without fallocate it does nothing, and HDF5's own error is reported.
void reserve_disk_space(const std::string& path, uint64_t bytes);

}  // namespace runner::results::detail
