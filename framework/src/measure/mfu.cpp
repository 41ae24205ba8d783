// Model FLOPs utilisation and the devices' peak throughput.
#include "measure/mfu.hpp"

#include <array>

namespace runner::measure {
namespace {

struct KnownGpu {
  const char* name_part;  // in the CUDA device name
  double half_tflops;     // bf16 / fp16 dense tensor cores
  double fp32_tflops;     // without TF32: the runner keeps fp32 exact
};

// The first match wins: the PCIe H100 before the generic one.
constexpr std::array<KnownGpu, 4> kKnownGpus = {{
    {"H100 PCIe", 756, 51},
    {"H100", 989, 67},
    {"H200", 989, 67},
    {"A100", 312, 19.5},
}};

}  // namespace

double training_flops_per_sample(double forward_flops_per_sample, bool checkpoint_layers) {
  return (checkpoint_layers ? 4.0 : 3.0) * forward_flops_per_sample;
}

double peak_tflops(double configured, const std::string& gpu_name, Precision precision) {
  if (configured > 0) return configured;
  if (gpu_name.empty()) return 0;
  for (const auto& gpu : kKnownGpus)
    if (gpu_name.find(gpu.name_part) != std::string::npos)
      return precision == Precision::fp32 ? gpu.fp32_tflops : gpu.half_tflops;
  return 0;
}

double model_flops_utilisation(double achieved_tflops, double peak_tflops_per_device, int ranks) {
  if (peak_tflops_per_device <= 0 || ranks <= 0) return 0;
  return achieved_tflops / (peak_tflops_per_device * ranks);
}

}  // namespace runner::measure
