// What runner says of the limits and variables it starts under, before LibTorch's libraries
// could speak: its own line and exit code, not the dynamic loader's or libgomp's.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "run_binary.hpp"

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

namespace runner::testing {
namespace {

TEST(StartEnvironment, AnAddressLimitTooSmallToLoadLibTorchIsNamed) {
  const Output output = run_runner("--version", "ulimit -v 200000;");
  EXPECT_EQ(output.exit_code, 5) << output.err;
  EXPECT_THAT(output.err,
              StartsWith("runner: error: the address-space limit (ulimit -v 200000 KiB) is too "
                         "small to load runner's libraries: "));
  EXPECT_THAT(output.err, Not(HasSubstr("error while loading")));
  EXPECT_EQ(output.out, "");
}

// 30 GiB: room for CUDA's libraries too, which LibTorch's CUDA build maps at its start.
TEST(StartEnvironment, AnAddressLimitThatLeavesRoomStartsTheHost) {
  const Output output = run_runner("--version", "ulimit -v 32000000;");
  EXPECT_EQ(output.exit_code, 0) << output.err;
  EXPECT_EQ(output.err, "");
  EXPECT_THAT(output.out, Not(""));
}

TEST(StartEnvironment, AnOpenMpVariableLibgompRefusesIsNamedAlone) {
  const Output output = run_runner("--version", "OMP_PROC_BIND=sideways");
  EXPECT_EQ(output.exit_code, 2) << output.err;
  EXPECT_THAT(output.err, StartsWith("runner: error: OMP_PROC_BIND=sideways: OpenMP (libgomp) "
                                     "does not take this value\n"));
  EXPECT_THAT(output.err, Not(HasSubstr("libgomp: Invalid")));
}

TEST(StartEnvironment, AThreadCountOutOfRangeIsNamedBeforeLibgompSpeaks) {
  for (const char* value : {"0", "many", "100000"}) {
    const Output output = run_runner("--version", std::string("OMP_NUM_THREADS=") + value);
    EXPECT_EQ(output.exit_code, 2) << value;
    EXPECT_THAT(output.err, StartsWith(std::string("runner: error: OMP_NUM_THREADS=") + value +
                                       ": a thread count must be a whole number from 1 to 1024"));
    EXPECT_THAT(output.err, Not(HasSubstr("libgomp")));
  }
}

TEST(StartEnvironment, OpenMpVariablesLibgompTakesStartTheHost) {
  const Output output = run_runner("--version", "OMP_PROC_BIND=close OMP_NUM_THREADS=2");
  EXPECT_EQ(output.exit_code, 0) << output.err;
  EXPECT_EQ(output.err, "");
}

}  // namespace
}  // namespace runner::testing
