// The host program lies under the launcher's prefix, in libexec/runner/.
#include "launcher/host_program.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace runner::launcher {
namespace {

TEST(HostProgram, IsUnderTheLaunchersPrefix) {
  EXPECT_EQ(host_program("/usr/local/bin/runner"), "/usr/local/libexec/runner/runner");
  EXPECT_EQ(host_program("/home/me/build/bin/runner"), "/home/me/build/libexec/runner/runner");
}

TEST(HostProgram, ThisProgramIsTheRunningTest) {
  EXPECT_EQ(std::filesystem::path(this_program()).filename(), "launcher_test");
}

TEST(HostProgram, TheBuildPutsItWhereTheLauncherLooks) {
  EXPECT_TRUE(std::filesystem::exists(host_program(RUNNER_BINARY_DIR "/bin/runner")));
}

}  // namespace
}  // namespace runner::launcher
