// one_line: the first line of an error from LibTorch or a plugin, without a backtrace, clipped.
#include "common/one_line.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace runner
