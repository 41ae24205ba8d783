// NVIDIA's management library (NVML), loaded at run time: libnvidia-ml.so.1 comes with the
// driver, so a CPU build, or a machine without a driver, needs nothing of it. Only the few
// calls the GPU monitor makes are bound; their C types are declared here, as NVML's ABI has
// kept them since CUDA 5.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

namespace runner::measure {

inline constexpr const char* kNvmlLibrary = "libnvidia-ml.so.1";

// Why NVML cannot be used: the library is missing, its init or a call failed.
class NvmlUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One reading of a device.
struct GpuReading {
  double utilization = 0;        // fraction of NVML's last sample period with a kernel running
  double memory_used_bytes = 0;  // the device's, by every process and context on it
};

class Nvml {
 public:
  // `library` as dlopen takes it: a file name searched for, or a path. NVML is initialised
  // until the object goes. Throws NvmlUnavailable.
  static std::shared_ptr<Nvml> load(const std::string& library = kNvmlLibrary);
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  std::string driver_version() const;
  // The device at a PCI bus id ("00000000:3b:00.0"): NVML's indices need not be CUDA's.
  void* device(const std::string& pci_bus_id) const;
  GpuReading read(void* device) const;

 private:
  struct Functions;
  Nvml(void* handle, std::unique_ptr<Functions> functions);

  void* handle_;
  std::unique_ptr<Functions> functions_;
};

}  // namespace runner::measure
