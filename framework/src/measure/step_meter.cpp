// The host's StepMeter: each step's forward, backward and optimizer time.
#include "measure/step_meter.hpp"

#include <algorithm>

#include "measure/cpu_memory.hpp"
#include "measure/system.hpp"

namespace runner::measure {
namespace {

double seconds_between(std::chrono::steady_clock::time_point from,
                       std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

HostStepMeter::HostStepMeter(torch::Device device) : device_(device) {
  if (device_.is_cpu()) count_cpu_allocations();
}

HostStepMeter::Clock::time_point HostStepMeter::now() const {
  if (device_.is_cuda()) torch::cuda::synchronize();
  return Clock::now();
}

int64_t HostStepMeter::allocated_bytes() const {
  return device_.is_cpu() ? cpu_bytes_in_use() : device_allocated_bytes(device_);
}

void HostStepMeter::forward_begins() {
  bytes_at_start_ = allocated_bytes();
  mark_ = now();
}

void HostStepMeter::forward_ends() {
  const auto t = now();
  totals_.forward_s += seconds_between(mark_, t);
  const double held = static_cast<double>(allocated_bytes() - bytes_at_start_);
  totals_.activation_bytes = std::max(totals_.activation_bytes, held);
  mark_ = t;
}

void HostStepMeter::backward_ends() {
  const auto t = now();
  totals_.backward_s += seconds_between(mark_, t);
  mark_ = t;
}

void HostStepMeter::step_ends() {
  const auto t = now();
  totals_.optimizer_s += seconds_between(mark_, t);
  mark_ = t;
}

PhaseTotals HostStepMeter::take() {
  PhaseTotals taken = totals_;
  totals_ = PhaseTotals{};
  return taken;
}

}  // namespace runner::measure
