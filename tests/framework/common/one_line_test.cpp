// one_line: the first line of an error from LibTorch or a plugin, without a backtrace, clipped;
// an allocation that failed named as memory.
#include "common/one_line.hpp"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <stdexcept>
#include <string>

namespace runner {
namespace {

TEST(OneLine, KeepsTheFirstLineOfAMessage) {
  EXPECT_EQ(one_line(std::runtime_error("shape mismatch\n  at layer 3")), "shape mismatch");
}

TEST(OneLine, DropsLibTorchsBacktrace) {
  try {
    TORCH_CHECK(false, "expected 3 dims, got 2");
  } catch (const c10::Error& e) {
    EXPECT_EQ(one_line(e), "expected 3 dims, got 2");
  }
}

TEST(OneLine, ClipsALongLineAndSaysHowLongItWas) {
  const std::string value(5000, 'x');
  const std::string line = one_line(std::runtime_error("unknown op \"" + value + "\""));
  EXPECT_EQ(line, "unknown op \"" + std::string(kQuotedErrorCharacters - 12, 'x') +
                      "... (5013 characters)");
}

TEST(OneLine, ALineAtTheLimitIsWhole) {
  const std::string exact(kQuotedErrorCharacters, 'y');
  EXPECT_EQ(one_line(std::runtime_error(exact)), exact);
}

// 2^48 floats are 2^50 bytes, 2^20 GiB: past any x86-64 process's address space (2^47), so the
// allocation fails even where the kernel overcommits.
TEST(OneLine, ATensorTooLargeForMemoryIsNamedWithItsSize) {
  try {
    const auto huge = torch::empty({int64_t{1} << 48}, torch::kFloat32);
    FAIL() << "allocated " << huge.numel() << " floats";
  } catch (const c10::Error& e) {
    EXPECT_EQ(one_line(e),
              "out of memory: an allocation of 1048576.00 GiB (1125899906842624 bytes) failed");
  }
}

TEST(OneLine, BadAllocIsNamedAsMemory) {
  EXPECT_EQ(one_line(std::bad_alloc()), "out of memory: an allocation failed (std::bad_alloc)");
}

}  // namespace
}  // namespace runner
