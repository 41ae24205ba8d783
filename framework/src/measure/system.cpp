// The machine as a run sees it: device, threads, memory, environment.
#include "measure/system.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <ctime>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "machine/blas_kernels.hpp"
#include "machine/thread_start.hpp"
#include "runner/errors.hpp"
#include "runner/version.hpp"

#if RUNNER_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace runner::measure {
namespace {

// The value of a "Key:   123 kB" line of /proc/self/status, in bytes.
double proc_status_kb(const std::string& key) {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind(key + ":", 0) == 0) return std::stod(line.substr(key.size() + 1)) * 1024.0;
  return 0;
}

// The value of a "Key:   123 kB" line of /proc/meminfo, in bytes; nullopt when absent.
std::optional<double> meminfo_kb(const std::string& key) {
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);)
    if (line.rfind(key + ":", 0) == 0) return std::stod(line.substr(key.size() + 1)) * 1024.0;
  return std::nullopt;
}

// The BLAS that libblas.so.3 resolved to, read from the process's own mappings.
std::string loaded_blas() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    auto slash = line.find('/');
    if (slash == std::string::npos) continue;
    std::string path = line.substr(slash);
    if (path.find("openblas") != std::string::npos || path.find("libblas") != std::string::npos ||
        path.find("mkl") != std::string::npos || path.find("blis") != std::string::npos)
      return path;
  }
  return "unknown";
}

std::string host_name() {
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  return name;
}

}  // namespace

torch::Device resolve_device(const std::string& name, int local_rank) {
  bool has_cuda = torch::cuda::is_available();
  if (name == "cpu" || (name == "auto" && !has_cuda)) return torch::kCPU;
  if (!has_cuda)
    throw RunError("train.device = \"cuda\" but no CUDA device is available",
                   "this LibTorch build or machine has no GPU; use device = \"cpu\" or \"auto\"");
  const int gpus = static_cast<int>(torch::cuda::device_count());
  if (local_rank >= gpus)
    throw RunError("local rank " + std::to_string(local_rank) + " has no GPU of its own: this " +
                       "machine has " + std::to_string(gpus),
                   "start at most one rank per GPU on each machine");
  return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(local_rank));
}

namespace {

using SetThreads = void (*)(int);

// A function of whichever library LibTorch itself resolved it from (OpenBLAS, the OpenMP
// runtime, which a pip LibTorch bundles under another file name); nullptr when none is loaded.
SetThreads loaded_function(const char* name) {
  return reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, name));
}

// openblas_get_parallel(): 0 for a sequential build, 1 for pthreads, 2 for OpenMP.
bool openblas_runs_on_openmp() {
  using Parallel = int (*)();
  auto parallel = reinterpret_cast<Parallel>(dlsym(RTLD_DEFAULT, "openblas_get_parallel"));
  return parallel && parallel() == 2;
}

}  // namespace

int configure_threads(int64_t requested, int local_ranks) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int threads = requested > 0 ? static_cast<int>(requested) : std::max(1, cores / local_ranks);
  // ATen starts a pool of `threads` at set_num_threads (Debian's pthreadpool waits there for
  // each worker, forever for one that could not start), and OpenMP `threads` - 1 more at the
  // first parallel region: all of them are checked first.
  const int beside = 2 * threads - 1;
  if (const auto problem = machine::thread_start_problem(beside))
    throw RunError(fmt::format("{} intra-op threads take {} threads beside this one (ATen's pool "
                               "of {}, OpenMP's {}): {}",
                               threads, beside, threads, threads - 1, *problem),
                   "raise the limit (ulimit -u), or ask for fewer threads: [train] threads, or "
                   "check-op's --threads");
  at::set_num_threads(threads);
  // OpenBLAS's OpenMP build multiplies on ATen's own OpenMP threads: all of them (its
  // openblas_set_num_threads sets OpenMP's count too). Its pthreads build keeps a pool of its
  // own whose spinning threads fight ATen's for the cores: one thread there.
  if (auto set_blas = loaded_function("openblas_set_num_threads"))
    set_blas(openblas_runs_on_openmp() ? threads : 1);
  return threads;
}

void use_one_thread_in_this_thread() {
  // at::set_num_threads would also change the count that other threads start from: set only
  // this thread's OpenMP count, after ATen's own first-use initialisation, which would
  // otherwise reset it at the thread's first parallel op. That initialisation is an inline
  // function with a thread_local flag: called from here, LibTorch 2.x's library keeps a flag
  // of its own and would still reset the count; at::get_num_threads runs it in the library.
  (void)at::get_num_threads();
  if (auto set_omp = loaded_function("omp_set_num_threads")) set_omp(1);
}

void reset_peak_memory(const torch::Device& device) {
#if RUNNER_WITH_CUDA
  if (device.is_cuda()) {
    c10::cuda::CUDACachingAllocator::resetPeakStats(device.index());
    return;
  }
#endif
  // Writing 5 to clear_refs resets VmHWM (the RSS peak) to the current RSS.
  std::ofstream("/proc/self/clear_refs") << "5";
  (void)device;
}

double peak_memory_bytes(const torch::Device& device) {
#if RUNNER_WITH_CUDA
  if (device.is_cuda()) {
    auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device.index());
    // Index 0 is StatType::AGGREGATE, whose namespace moved between LibTorch 1.13 and 2.x.
    return static_cast<double>(stats.allocated_bytes[0].peak);
  }
#endif
  (void)device;
  return proc_status_kb("VmHWM");
}

int64_t device_allocated_bytes(const torch::Device& device) {
#if RUNNER_WITH_CUDA
  if (device.is_cuda()) {
    auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device.index());
    return stats.allocated_bytes[0].current;
  }
#endif
  (void)device;
  return 0;
}

std::optional<double> available_memory_bytes() { return meminfo_kb("MemAvailable"); }

std::optional<double> cuda_memory_bytes() {
#if RUNNER_WITH_CUDA
  if (torch::cuda::is_available())
    return static_cast<double>(at::cuda::getDeviceProperties(0)->totalGlobalMem);
#endif
  return std::nullopt;
}

std::string pci_bus_id(const torch::Device& device) {
#if RUNNER_WITH_CUDA
  if (device.is_cuda()) {
    const cudaDeviceProp* properties = at::cuda::getDeviceProperties(device.index());
    return fmt::format("{:08x}:{:02x}:{:02x}.0", properties->pciDomainID, properties->pciBusID,
                       properties->pciDeviceID);
  }
#endif
  (void)device;
  return "";
}

std::string cuda_device_name() {
#if RUNNER_WITH_CUDA
  if (torch::cuda::is_available()) return at::cuda::getDeviceProperties(0)->name;
#endif
  return "";
}

std::map<std::string, std::string> environment(const std::string& device, int threads,
                                               int world_size) {
  return {{"runner_version", RUNNER_VERSION},
          {"torch_version", TORCH_VERSION},
          {"blas", loaded_blas()},
          {"blas_kernels", machine::openblas_kernels()},
          {"device", device},
          {"threads", std::to_string(threads)},
          {"world_size", std::to_string(world_size)},
          {"host", host_name()}};
}

}  // namespace runner::measure
