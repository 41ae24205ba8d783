// A counting CPU allocator: tensor bytes in use and their peak.
#include "measure/cpu_memory.hpp"

#include <c10/core/CPUAllocator.h>
#include "runner/compat.hpp"

#include <atomic>
#include <mutex>

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

void release(void* data) {
  Header* header = header_of(data);
  bytes_in_use -= header->bytes;
  header->inner_deleter(header);
}

class CountingAllocator final : public compat::CpuAllocator {
 public:
  explicit CountingAllocator(c10::Allocator* inner) : inner_(inner) {}

  c10::DataPtr allocate_block(size_t bytes) const override {
    c10::DataPtr block = inner_->allocate(bytes + kHeaderSpace);
    // An allocator whose context is not its data (not LibTorch's default) is left uncounted.
    if (block.get() != block.get_context()) return inner_->allocate(bytes);
    const c10::Device device = block.device();
    c10::DeleterFnPtr inner_deleter = block.get_deleter();
    auto* header = static_cast<Header*>(block.release_context());
    *header = Header{static_cast<int64_t>(bytes), inner_deleter};
    count_in(header->bytes);
    void* data = reinterpret_cast<char*>(header) + kHeaderSpace;
    return {data, data, &release, device};
  }

  c10::DeleterFnPtr raw_deleter() const override { return &release; }

 private:
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

void reset_cpu_peak() { peak_bytes = bytes_in_use.load(); }

int64_t cpu_peak_bytes() { return peak_bytes.load(); }

}  // namespace runner::measure
