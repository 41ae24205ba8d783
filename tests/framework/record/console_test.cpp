// Tests of the console: a progress bar on a terminal, none on a pipe or when quiet, epoch lines.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "record/console.hpp"

using ::testing::HasSubstr;
using ::testing::Not;

namespace runner::record {
namespace {

// 25 of 100 steps in 10 s: 0.4 s a step of 64 samples, 160 samples/s, 75 steps to go.
const ProgressPoint kQuarter{1, 2, 25, 100, 0.5, 25, 10.0, 64};

TEST(Console, ATerminalGetsAProgressBarWithRateAndEtaThatEpochLinesReplace) {
  std::ostringstream out;
  Console console(out, false, true);
  console.progress(kQuarter);
  EXPECT_THAT(out.str(), HasSubstr("[#######.......................] 25/100 loss 0.5000 "
                                   "160 samples/s ETA 30.0 s"))
      << out.str();
  console.line("epoch 1/2 ...");
  EXPECT_THAT(out.str(), HasSubstr("\r\033[2Kepoch 1/2 ...\n")) << out.str();
}

// An epoch resumed at step 20: its rate and ETA come from the 5 steps this process ran.
TEST(Console, AResumedEpochsRateAndEtaAreOfTheStepsTimedHere) {
  std::ostringstream out;
  Console(out, false, true).progress({1, 2, 25, 100, 0.5, 5, 2.0, 64});
  EXPECT_THAT(out.str(), HasSubstr("25/100 loss 0.5000 160 samples/s ETA 30.0 s")) << out.str();
}

TEST(Console, APipeGetsNoProgressAndQuietGetsNothing) {
  std::ostringstream piped, quiet;
  Console(piped, false, false).progress(kQuarter);
  EXPECT_EQ(piped.str(), "");
  Console q(quiet, true, true);
  q.progress(kQuarter);
  q.line("epoch");
  EXPECT_EQ(quiet.str(), "");
}

TEST(Console, AnEpochLineEndsWithTheGpusUtilisationOnlyWhenMeasured) {
  results::EpochRecord epoch;
  epoch.epoch = 1;
  std::ostringstream cpu, gpu;
  Console(cpu, false, false).epoch_done(epoch, 2);
  EXPECT_THAT(cpu.str(), Not(HasSubstr("GPU"))) << cpu.str();
  epoch.gpu_utilization = 0.874;
  Console(gpu, false, false).epoch_done(epoch, 2);
  EXPECT_THAT(gpu.str(), HasSubstr("peak 0.0 MiB  GPU 87%\n")) << gpu.str();
}

TEST(Console, AnEpochLineWritesASlowRateWithItsDigits) {
  results::EpochRecord epoch;
  epoch.epoch = 1;
  epoch.samples_per_s = 0.00712;
  std::ostringstream out;
  Console(out, false, false).epoch_done(epoch, 1);
  EXPECT_THAT(out.str(), HasSubstr("  0.00712 samples/s  ")) << out.str();
}

}  // namespace
}  // namespace runner::record
