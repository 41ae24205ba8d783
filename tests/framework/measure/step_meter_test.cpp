// The host's step meter: phase times and the memory a forward pass leaves held, on the CPU.
#include "measure/step_meter.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "measure/cpu_memory.hpp"

namespace runner::measure {
namespace {

void pause_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

TEST(CpuMemory, CountsTensorsWhileTheyLive) {
  count_cpu_allocations();
  const int64_t before = cpu_bytes_in_use();
  {
    torch::Tensor t = torch::empty({1000}, torch::kFloat);
    EXPECT_EQ(cpu_bytes_in_use() - before, 4000);
    t.fill_(1.5);  // the memory is usable
    EXPECT_EQ(t.sum().item<float>(), 1500.0f);
  }
  EXPECT_EQ(cpu_bytes_in_use(), before);
}

TEST(StepMeter, MeasuresPhasesAndTheMemoryHeldAfterForward) {
  HostStepMeter meter(torch::kCPU);
  const auto start = std::chrono::steady_clock::now();
  meter.forward_begins();
  torch::Tensor saved = torch::ones({250000});  // 1 MB kept past the forward, as autograd does
  torch::Tensor temporary = torch::ones({500000});
  temporary.reset();  // 2 MB freed within the forward: not held
  pause_ms(20);
  meter.forward_ends();
  pause_ms(10);
  meter.backward_ends();
  pause_ms(5);
  meter.step_ends();
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  PhaseTotals totals = meter.take();
  EXPECT_EQ(totals.activation_bytes, 1e6);
  EXPECT_GE(totals.forward_s, 0.02);
  EXPECT_GE(totals.backward_s, 0.01);
  EXPECT_GE(totals.optimizer_s, 0.005);
  // The phases follow one another: however slow the machine, together they fit in the time
  // the step took, which a phase timed from an earlier mark than its own start would overrun.
  EXPECT_LE(totals.forward_s + totals.backward_s + totals.optimizer_s, wall_s + 1e-9);

  PhaseTotals next = meter.take();  // take() starts new totals
  EXPECT_EQ(next.forward_s, 0.0);
  EXPECT_EQ(next.activation_bytes, 0.0);
}

TEST(StepMeter, KeepsTheLargestHeldMemoryOverSteps) {
  HostStepMeter meter(torch::kCPU);
  for (int64_t floats : {1000, 4000, 2000}) {
    meter.forward_begins();
    torch::Tensor saved = torch::ones({floats});
    meter.forward_ends();
    meter.backward_ends();
    meter.step_ends();
  }
  EXPECT_EQ(meter.take().activation_bytes, 16000.0);
}

}  // namespace
}  // namespace runner::measure
