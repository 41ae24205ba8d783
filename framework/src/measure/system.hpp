// What a run asks of the machine: the device, threads, memory peaks, the environment.
#pragma once

#include <torch/torch.h>

#include <map>
#include <optional>
#include <string>

namespace runner::measure {

// "cpu", "cuda" or "auto"; a RunError when CUDA is asked for and absent. A rank takes the
// GPU of its local rank.
torch::Device resolve_device(const std::string& name, int local_rank = 0);

// ATen's intra-op threads (0 = the cores shared out among the ranks on this machine), and as
// many for OpenBLAS's OpenMP build, which runs on the same threads; OpenBLAS's pthreads build
// is kept at one thread, whose own pool otherwise fights ATen's (measured: a LeNet-5 epoch
// took 1.7x as long; tools/bench/README.md, gpt2_step.sh). Returns the count. A RunError
// when the process cannot start that many threads (ulimit -u), before LibTorch waits for them.
int configure_threads(int64_t requested, int local_ranks = 1);

// Tensor ops of the calling thread (a loader thread) run on that thread alone; the others
// keep their counts.
void use_one_thread_in_this_thread();

// Peak memory since the last reset: process RSS on the CPU, the allocator's peak on CUDA.
void reset_peak_memory(const torch::Device& device);
double peak_memory_bytes(const torch::Device& device);

// Bytes the CUDA caching allocator has handed out now; 0 on other devices.
int64_t device_allocated_bytes(const torch::Device& device);

// The machine's memory that processes can still take (MemAvailable); nullopt when unknown.
std::optional<double> available_memory_bytes();

// The PCI bus id of a CUDA device, as NVML names it ("00000000:3b:00.0"); "" for others.
std::string pci_bus_id(const torch::Device& device);

// The first CUDA device's memory and name; nullopt / "" without CUDA.
std::optional<double> cuda_memory_bytes();
std::string cuda_device_name();

// runner and LibTorch versions, BLAS library, device, threads, host.
std::map<std::string, std::string> environment(const std::string& device, int threads,
                                               int world_size);

}  // namespace runner::measure
