// NVML, loaded at run time where the driver provides it.
#include "measure/nvml.hpp"

#include <dlfcn.h>

namespace runner::measure {

// NVML's C types (nvml.h): a return code, an opaque device, and two reading structs. Named, not
// anonymous: Nvml::Functions holds pointers to functions of them.
namespace nvml_types {
using NvmlReturn = int;
constexpr NvmlReturn kNvmlSuccess = 0;
using NvmlDevice = void*;
struct NvmlUtilization {
  unsigned int gpu;     // percent
  unsigned int memory;  // percent
};
struct NvmlMemory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

}  // namespace nvml_types
using namespace nvml_types;

namespace {

template <typename F>
F bound(void* handle, const char* name) {
  void* symbol = dlsym(handle, name);
  if (!symbol)
    throw NvmlUnavailable(std::string("the NVML library has no ") + name +
                          " (a driver older than CUDA 5's)");
  return reinterpret_cast<F>(symbol);
}

}  // namespace

struct Nvml::Functions {
  explicit Functions(void* handle)
      : init(bound<NvmlReturn (*)()>(handle, "nvmlInit_v2")),
        shutdown(bound<NvmlReturn (*)()>(handle, "nvmlShutdown")),
        error_string(bound<const char* (*)(NvmlReturn)>(handle, "nvmlErrorString")),
        driver_version(
            bound<NvmlReturn (*)(char*, unsigned int)>(handle, "nvmlSystemGetDriverVersion")),
        by_bus_id(bound<NvmlReturn (*)(const char*, NvmlDevice*)>(
            handle, "nvmlDeviceGetHandleByPciBusId_v2")),
        utilization(bound<NvmlReturn (*)(NvmlDevice, NvmlUtilization*)>(
            handle, "nvmlDeviceGetUtilizationRates")),
        memory(bound<NvmlReturn (*)(NvmlDevice, NvmlMemory*)>(handle, "nvmlDeviceGetMemoryInfo")) {}

  // Throws NvmlUnavailable naming the call when `code` is an error.
  void check(NvmlReturn code, const char* call) const {
    if (code != kNvmlSuccess)
      throw NvmlUnavailable(std::string(call) + " failed: " + error_string(code));
  }

  NvmlReturn (*init)();
  NvmlReturn (*shutdown)();
  const char* (*error_string)(NvmlReturn);
  NvmlReturn (*driver_version)(char*, unsigned int);
  NvmlReturn (*by_bus_id)(const char*, NvmlDevice*);
  NvmlReturn (*utilization)(NvmlDevice, NvmlUtilization*);
  NvmlReturn (*memory)(NvmlDevice, NvmlMemory*);
};

std::shared_ptr<Nvml> Nvml::load(const std::string& library) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw NvmlUnavailable(library + " could not be loaded: " + dlerror());
  try {
    auto functions = std::make_unique<Functions>(handle);
    functions->check(functions->init(), "nvmlInit");
    return std::shared_ptr<Nvml>(new Nvml(handle, std::move(functions)));
  } catch (const NvmlUnavailable&) {
    dlclose(handle);
    throw;
  }
}

Nvml::Nvml(void* handle, std::unique_ptr<Functions> functions)
    : handle_(handle), functions_(std::move(functions)) {}

Nvml::~Nvml() {
  functions_->shutdown();
  dlclose(handle_);
}

std::string Nvml::driver_version() const {
  char version[96] = {};
  functions_->check(functions_->driver_version(version, sizeof(version)),
                    "nvmlSystemGetDriverVersion");
  return version;
}

void* Nvml::device(const std::string& pci_bus_id) const {
  NvmlDevice device = nullptr;
  const NvmlReturn code = functions_->by_bus_id(pci_bus_id.c_str(), &device);
  if (code != kNvmlSuccess)
    throw NvmlUnavailable("NVML has no device at PCI bus id " + pci_bus_id + ": " +
                          functions_->error_string(code));
  return device;
}

GpuReading Nvml::read(void* device) const {
  NvmlUtilization utilization{};
  functions_->check(functions_->utilization(device, &utilization), "nvmlDeviceGetUtilizationRates");
  NvmlMemory memory{};
  functions_->check(functions_->memory(device, &memory), "nvmlDeviceGetMemoryInfo");
  return {utilization.gpu / 100.0, static_cast<double>(memory.used)};
}

}  // namespace runner::measure
