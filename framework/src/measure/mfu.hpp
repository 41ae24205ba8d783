// Model FLOPs utilisation: the model's FLOPs per step over what the devices could have done in
// the step's time (PaLM's definition; recomputation is not counted, but the seeds' formula
// counts a checkpointed run's second forward: 8 x parameters x tokens instead of 6).
#pragma once

#include <runner/techniques.hpp>

#include <string>

namespace runner::measure {

// Training FLOPs of one sample: 3 forwards (forward, and backward's two), 4 with activation
// checkpointing.
double training_flops_per_sample(double forward_flops_per_sample, bool checkpoint_layers);

// One device's peak TFLOP/s: `configured` when above 0, else the dense peak of a known GPU
// by its name at `precision` (H100/H200 SXM: 989 bf16/fp16, 67 fp32; H100 PCIe: 756, 51;
// A100: 312, 19.5); 0 when unknown (CPUs).
double peak_tflops(double configured, const std::string& gpu_name, Precision precision);

// achieved / (peak x ranks); 0 when the peak is unknown.
double model_flops_utilisation(double achieved_tflops, double peak_tflops_per_device, int ranks);

}  // namespace runner::measure
