// One rank's memory peaks over a run, on the CPU or its GPU.
#include "measure/rank_memory.hpp"

#include "measure/cpu_memory.hpp"
#include "measure/system.hpp"

namespace runner::measure {

RankMemory::RankMemory(torch::Device device) : device_(device) {
  count_cpu_allocations();
  baseline_ = cpu_bytes_in_use();
}

void RankMemory::epoch_begins() {
  reset_peak_memory(device_);
  reset_cpu_peak();
}

double RankMemory::process_peak() const { return peak_memory_bytes(device_); }

double RankMemory::tensor_peak() const {
  if (device_.is_cuda()) return peak_memory_bytes(device_);
  return static_cast<double>(cpu_peak_bytes() - baseline_);
}

double RankMemory::tensors_in_use() const {
  if (device_.is_cuda()) return static_cast<double>(device_allocated_bytes(device_));
  return static_cast<double>(cpu_bytes_in_use() - baseline_);
}

}  // namespace runner::measure
