// Tests of the rank's wait clock: host-timed waits at once, stream-timed ones when read, and
// the CUDA events that time NCCL's waits on a GPU's stream.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <chrono>
#include <memory>

#include "distributed/nccl_group.hpp"
#include "distributed/wait_clock.hpp"

namespace runner::testing {
namespace {

using distributed::StreamStall;
using distributed::WaitClock;

// A stall of known seconds that counts how often it was read.
class KnownStall final : public StreamStall {
 public:
  KnownStall(double seconds, int& reads) : seconds_(seconds), reads_(reads) {}
  void end() override {}
  double seconds() override {
    ++reads_;
    return seconds_;
  }

 private:
  double seconds_;
  int& reads_;
};

TEST(WaitClock, HostWaitsAndStreamStallsAddUp) {
  WaitClock clock;
  int reads = 0;
  clock.add(std::chrono::milliseconds(250));
  clock.add_later(std::make_unique<KnownStall>(0.5, reads));
  clock.add_later(std::make_unique<KnownStall>(0.125, reads));
  EXPECT_EQ(reads, 0);  // a stall's events are read when the clock is, not at each wait
  EXPECT_DOUBLE_EQ(clock.seconds(), 0.875);
  EXPECT_EQ(reads, 2);
  EXPECT_DOUBLE_EQ(clock.seconds(), 0.875);  // each stall counted once
  EXPECT_EQ(reads, 2);
}

TEST(WaitClock, StallsAreReadBeforeTooManyWait) {
  WaitClock clock;
  int reads = 0;
  for (size_t i = 0; i + 1 < WaitClock::kMaxUnread; ++i)
    clock.add_later(std::make_unique<KnownStall>(0.001, reads));
  EXPECT_EQ(reads, 0);
  clock.add_later(std::make_unique<KnownStall>(0.001, reads));
  EXPECT_EQ(reads, static_cast<int>(WaitClock::kMaxUnread));
  EXPECT_NEAR(clock.seconds(), 0.001 * WaitClock::kMaxUnread, 1e-9);
}

TEST(CudaStreamStall, ACpuOnlyBuildSaysItCannot) {
  if (distributed::nccl_built()) GTEST_SKIP() << "a CUDA build";
  try {
    distributed::cuda_stream_stall(torch::Device(torch::kCUDA, 0));
    FAIL() << "a stall was made without CUDA";
  } catch (const std::exception& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("cannot time a wait on cuda:0")) << e.what();
  }
}

// Enough matrix products to keep a GPU busy for milliseconds.
void keep_busy(const torch::Tensor& a) {
  for (int i = 0; i < 20; ++i) a.mm(a);
}

// The GPU's time for keep_busy, by the host's clock around it with the device synchronized.
double host_seconds_of_busy(const torch::Tensor& a) {
  torch::cuda::synchronize();
  const auto start = std::chrono::steady_clock::now();
  keep_busy(a);
  torch::cuda::synchronize();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(CudaStreamStall, CountsTheStreamsWorkBetweenItsMarksOnly) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "needs a CUDA device";
  const torch::Device gpu(torch::kCUDA, 0);
  const torch::Tensor a = torch::randn({4096, 4096}, gpu);
  keep_busy(a);  // warmed up
  const double busy = host_seconds_of_busy(a);

  auto between = distributed::cuda_stream_stall(gpu);
  keep_busy(a);
  between->end();
  const double counted = between->seconds();
  EXPECT_GT(counted, 0.5 * busy) << "busy " << busy;
  EXPECT_LT(counted, 1.5 * busy) << "busy " << busy;

  keep_busy(a);  // queued before the first mark: not the wait's
  auto after = distributed::cuda_stream_stall(gpu);
  after->end();
  EXPECT_LT(after->seconds(), 0.1 * busy) << "busy " << busy;
}

}  // namespace
}  // namespace runner::testing
