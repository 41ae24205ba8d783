// NVML's readings of a rank's GPU over each epoch, from a sampling thread.
#include "measure/gpu_monitor.hpp"

#include <algorithm>

namespace runner::measure {
namespace {

// The device, read once: throws NvmlUnavailable before the sampling starts when it cannot be.
void* readable_device(Nvml& nvml, const std::string& pci_bus_id) {
  void* device = nvml.device(pci_bus_id);
  nvml.read(device);
  return device;
}

}  // namespace

GpuMonitor::GpuMonitor(std::shared_ptr<Nvml> nvml, const std::string& pci_bus_id,
                       std::chrono::milliseconds period)
    : nvml_(std::move(nvml)),
      device_(readable_device(*nvml_, pci_bus_id)),
      sampler_("GPU sampler", period, FirstTick::after_a_period, [this] {
        sample();
        return true;
      }) {}

void GpuMonitor::epoch_begins() {
  std::lock_guard<std::mutex> lock(mutex_);
  utilization_sum_ = 0;
  memory_peak_ = 0;
  readings_ = 0;
}

GpuEpoch GpuMonitor::take() {
  sample();
  std::lock_guard<std::mutex> lock(mutex_);
  GpuEpoch epoch;
  if (readings_ == 0) return epoch;
  epoch.utilization = utilization_sum_ / readings_;
  epoch.memory_used_bytes = memory_peak_;
  return epoch;
}

// A reading that fails (a device lost mid-run) is left out: the epoch keeps the others.
void GpuMonitor::sample() {
  GpuReading reading;
  try {
    reading = nvml_->read(device_);
  } catch (const NvmlUnavailable&) {
    return;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  utilization_sum_ += reading.utilization;
  memory_peak_ = std::max(memory_peak_, reading.memory_used_bytes);
  ++readings_;
}

std::unique_ptr<GpuMonitor> start_gpu_monitor(bool is_cuda, const std::string& pci_bus_id,
                                              std::string& reason, const std::string& library) {
  if (!is_cuda) {
    reason = "the run's device is not a GPU";
    return nullptr;
  }
  try {
    return std::make_unique<GpuMonitor>(Nvml::load(library), pci_bus_id);
  } catch (const NvmlUnavailable& e) {
    reason = e.what();
    return nullptr;
  }
}

std::string gpu_monitor_status(bool is_cuda, const std::string& library) {
  if (!is_cuda) return "off: the run's device is not a GPU";
  try {
    return "NVML, driver " + Nvml::load(library)->driver_version();
  } catch (const NvmlUnavailable& e) {
    return std::string("off: ") + e.what();
  }
}

}  // namespace runner::measure
