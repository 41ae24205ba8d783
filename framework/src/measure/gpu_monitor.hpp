// A rank's GPU as NVML sees it over each epoch: a thread reads the device's utilisation and
// memory every `period`, and an epoch gets the mean utilisation and the largest memory use of
// its readings. NVML's utilisation is the share of its own last sample period (1/6 s to 1 s,
// by product) in which a kernel ran; its memory counts every process and CUDA context on the
// device, which the caching allocator's peak (peak_memory_bytes) does not.
#pragma once

#include <chrono>
#include <limits>
#include <memory>
#include <mutex>
#include <string>

#include "common/periodic_thread.hpp"
#include "measure/nvml.hpp"

namespace runner::measure {

// NaN when nothing was measured: a CPU run, or NVML unavailable.
struct GpuEpoch {
  double utilization = std::numeric_limits<double>::quiet_NaN();  // fraction
  double memory_used_bytes = std::numeric_limits<double>::quiet_NaN();
};

class GpuMonitor {
 public:
  // Reads the device at `pci_bus_id` now (throwing NvmlUnavailable when it cannot) and then
  // every `period` until destroyed.
  GpuMonitor(std::shared_ptr<Nvml> nvml, const std::string& pci_bus_id,
             std::chrono::milliseconds period = std::chrono::milliseconds(200));
  GpuMonitor(const GpuMonitor&) = delete;
  GpuMonitor& operator=(const GpuMonitor&) = delete;

  // Forgets the readings so far.
  void epoch_begins();
  // The readings since epoch_begins, and one taken now: an epoch shorter than the period
  // still has one.
  GpuEpoch take();

 private:
  void sample();

  std::shared_ptr<Nvml> nvml_;
  void* device_;
  std::mutex mutex_;  // the readings' sums: the sampling thread adds, the trainer takes
  double utilization_sum_ = 0;
  double memory_peak_ = 0;
  int readings_ = 0;
  PeriodicThread sampler_;
};

// The monitor of a run's device (`pci_bus_id` as CUDA reports it), or nullptr with `reason`
// saying why not: not a GPU, NVML missing or failing.
std::unique_ptr<GpuMonitor> start_gpu_monitor(bool is_cuda, const std::string& pci_bus_id,
                                              std::string& reason,
                                              const std::string& library = kNvmlLibrary);

// What a run's results say of its GPU readings: "NVML, driver 550.54.15", or "off: " and why.
std::string gpu_monitor_status(bool is_cuda, const std::string& library = kNvmlLibrary);

}  // namespace runner::measure
