// A counting CPU allocator: tensor bytes in use and their peak.
#include "measure/cpu_memory.hpp"

#include <c10/core/CPUAllocator.h>
#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>

#include "machine/cpu_block_cache.hpp"
#include "runner/compat.hpp"

namespace runner::measure {
namespace {

std::atomic<int64_t> bytes_in_use{0};
std::atomic<int64_t> peak_bytes{0};

void count_in(int64_t bytes) {
  const int64_t now = bytes_in_use += bytes;
  int64_t peak = peak_bytes.load();
  while (now > peak && !peak_bytes.compare_exchange_weak(peak, now)) {
  }
}

// Each counted block starts with this header, and the tensor's data follows it at the next
// 64-byte boundary (the default allocator's alignment). Data and deleter context stay the same
// pointer, as LibTorch's raw_allocate() requires, and no lookup table is needed.
struct Header {
  int64_t bytes;
  c10::DeleterFnPtr inner_deleter;
};
constexpr size_t kHeaderSpace = 64;
static_assert(sizeof(Header) <= kHeaderSpace);

Header* header_of(void* data) {
  return reinterpret_cast<Header*>(static_cast<char*>(data) - kHeaderSpace);
}

// A quarter of the machine's memory at most: what one step's large tensors take, with room.
machine::CpuBlockCache& block_cache() {
  static auto* cache = new machine::CpuBlockCache(static_cast<size_t>(sysconf(_SC_PHYS_PAGES)) *
                                                  static_cast<size_t>(sysconf(_SC_PAGE_SIZE)) / 4);
  return *cache;  // never destroyed: tensors may be freed at exit after static destructors
}

std::atomic<int64_t> resident_ceiling{0};  // 0: none

// The process's resident bytes: the second field of /proc/self/statm, in pages. A read of a
// few dozen bytes, made only around blocks of 32 MiB and more; opened each time, so a forked
// process reads its own.
int64_t resident_bytes() {
  const int statm = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (statm < 0) return 0;
  char text[128] = {};
  const ssize_t read = ::pread(statm, text, sizeof(text) - 1, 0);
  ::close(statm);
  if (read <= 0) return 0;
  long long size = 0, resident = 0;
  if (std::sscanf(text, "%lld %lld", &size, &resident) != 2) return 0;
  return resident * sysconf(_SC_PAGE_SIZE);
}

bool over_ceiling(size_t more) {
  const int64_t ceiling = resident_ceiling.load();
  return ceiling > 0 && resident_bytes() + static_cast<int64_t>(more) > ceiling;
}

// Before a large block comes fresh from the system, over the ceiling: the blocks kept longest
// go back, then the heap's free pages (a step's small tensors, freed, stay resident in
// glibc's heap: GPT-2 XL's forward leaves gigabytes of bf16 weight copies there).
void make_room_for(size_t bytes) {
  if (bytes < machine::CpuBlockCache::kSmallest || resident_ceiling.load() == 0) return;
  while (over_ceiling(bytes) && block_cache().drop_oldest()) {
  }
  if (over_ceiling(bytes)) malloc_trim(0);
}

// A large block is kept only while the process is under the ceiling.
void release(void* data) {
  Header* header = header_of(data);
  bytes_in_use -= header->bytes;
  const machine::CpuBlock block{header, static_cast<size_t>(header->bytes) + kHeaderSpace,
                                header->inner_deleter};
  if (block.bytes >= machine::CpuBlockCache::kSmallest && !over_ceiling(0) &&
      block_cache().keep(block))
    return;
  block.free(block.data);
}

Header* counted(const machine::CpuBlock& block, size_t bytes) {
  auto* header = static_cast<Header*>(block.data);
  *header = Header{static_cast<int64_t>(bytes), block.free};
  count_in(header->bytes);
  return header;
}

class CountingAllocator final : public compat::CpuAllocator {
 public:
  explicit CountingAllocator(c10::Allocator* inner) : inner_(inner) {}

  c10::DataPtr allocate_block(size_t bytes) const override {
    if (std::optional<machine::CpuBlock> kept = block_cache().take(bytes + kHeaderSpace))
      return data_of(counted(*kept, bytes));
    make_room_for(bytes + kHeaderSpace);
    c10::DataPtr block = allocate_inner(bytes + kHeaderSpace);
    // An allocator whose context is not its data (not LibTorch's default) is left uncounted.
    if (block.get() != block.get_context()) return inner_->allocate(bytes);
    const c10::DeleterFnPtr inner_deleter = block.get_deleter();
    return data_of(counted({block.release_context(), bytes + kHeaderSpace, inner_deleter}, bytes));
  }

  c10::DeleterFnPtr raw_deleter() const override { return &release; }

 private:
  static c10::DataPtr data_of(Header* header) {
    void* data = reinterpret_cast<char*>(header) + kHeaderSpace;
    return {data, data, &release, c10::Device(c10::DeviceType::CPU)};
  }

  // Out of memory, the cached blocks go back before the request fails.
  c10::DataPtr allocate_inner(size_t bytes) const {
    try {
      return inner_->allocate(bytes);
    } catch (const c10::Error&) {
      block_cache().release_all();
      return inner_->allocate(bytes);
    }
  }

  c10::Allocator* inner_;
};

}  // namespace

void count_cpu_allocations() {
  static std::once_flag installed;
  std::call_once(installed, [] {
    static CountingAllocator counting(c10::GetDefaultCPUAllocator());
    // Above the default's priority 0, so LibTorch's CPU tensors come from here.
    c10::SetCPUAllocator(&counting, /*priority=*/1);
  });
}

int64_t cpu_bytes_in_use() { return bytes_in_use.load(); }

void release_cached_cpu_blocks() { block_cache().release_all(); }

int64_t cached_cpu_bytes() { return static_cast<int64_t>(block_cache().bytes_kept()); }

int64_t limit_cached_cpu_bytes(int64_t bytes) {
  return static_cast<int64_t>(
      block_cache().set_capacity(static_cast<size_t>(std::max<int64_t>(bytes, 0))));
}

int64_t keep_resident_memory_under(int64_t bytes) {
  return resident_ceiling.exchange(std::max<int64_t>(bytes, 0));
}

int64_t resident_memory_bytes() { return resident_bytes(); }

void reset_cpu_peak() { peak_bytes = bytes_in_use.load(); }

int64_t cpu_peak_bytes() { return peak_bytes.load(); }

}  // namespace runner::measure
