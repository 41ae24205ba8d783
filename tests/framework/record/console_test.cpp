// Tests of the console: a progress bar on a terminal, none on a pipe or when quiet, epoch lines.
#include <gtest/gtest.h>

#include <sstream>

#include "record/console.hpp"

namespace runner::record {
namespace {

TEST(Console, ATerminalGetsAProgressBarWithEtaThatEpochLinesReplace) {
  std::ostringstream out;
  Console console(out, false, true);
  console.progress(1, 2, 25, 100, 0.5, 10.0);
  EXPECT_NE(out.str().find("[#######......................."), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("ETA 30.0 s"), std::string::npos) << out.str();
  console.line("epoch 1/2 ...");
  EXPECT_NE(out.str().find("\r\033[2Kepoch 1/2 ...\n"), std::string::npos) << out.str();
}

TEST(Console, APipeGetsNoProgressAndQuietGetsNothing) {
  std::ostringstream piped, quiet;
  Console(piped, false, false).progress(1, 2, 25, 100, 0.5, 10.0);
  EXPECT_EQ(piped.str(), "");
  Console q(quiet, true, true);
  q.progress(1, 2, 25, 100, 0.5, 10.0);
  q.line("epoch");
  EXPECT_EQ(quiet.str(), "");
}

TEST(Console, AnEpochLineEndsWithTheGpusUtilisationOnlyWhenMeasured) {
  results::EpochRecord epoch;
  epoch.epoch = 1;
  std::ostringstream cpu, gpu;
  Console(cpu, false, false).epoch_done(epoch, 2);
  EXPECT_EQ(cpu.str().find("GPU"), std::string::npos) << cpu.str();
  epoch.gpu_utilization = 0.874;
  Console(gpu, false, false).epoch_done(epoch, 2);
  EXPECT_NE(gpu.str().find("peak 0.0 MiB  GPU 87%\n"), std::string::npos) << gpu.str();
}

TEST(Console, AnEpochLineWritesASlowRateWithItsDigits) {
  results::EpochRecord epoch;
  epoch.epoch = 1;
  epoch.samples_per_s = 0.00712;
  std::ostringstream out;
  Console(out, false, false).epoch_done(epoch, 1);
  EXPECT_NE(out.str().find("  0.00712 samples/s  "), std::string::npos) << out.str();
}

}  // namespace
}  // namespace runner::record
