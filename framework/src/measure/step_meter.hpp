// The host's StepMeter: forward, backward and optimizer time of each training step, and the
// memory a forward pass leaves held until its backward (the saved activations), summed or
// maxed over an epoch.
#pragma once

#include <runner/strategy.hpp>

#include <chrono>

namespace runner::measure {

struct PhaseTotals {
  double forward_s = 0, backward_s = 0, optimizer_s = 0;
  // Largest growth of allocated memory from the start of a step to the end of its forward:
  // what autograd keeps for backward, plus the outputs and loss (small). 0 when the device
  // has no allocation count.
  double activation_bytes = 0;
  double wait_s = 0;  // the strategy's waits for other ranks' data (StepMeter::waited)
};

class HostStepMeter : public StepMeter {
 public:
  explicit HostStepMeter(torch::Device device);

  void forward_begins() override;
  void forward_ends() override;
  void backward_ends() override;
  void step_ends() override;
  void waited(double seconds) override { totals_.wait_s += seconds; }

  // The totals since the last call, which starts new ones.
  PhaseTotals take();

 private:
  using Clock = std::chrono::steady_clock;
  // Waits for the device, then reads the clock.
  Clock::time_point now() const;
  int64_t allocated_bytes() const;

  torch::Device device_;
  Clock::time_point mark_;
  int64_t bytes_at_start_ = 0;
  PhaseTotals totals_;
};

}  // namespace runner::measure
