// layout::calibrate: the rates measured on this machine's CPU, and the ones a GPU plan on
// paper derives from what is given.
#include "layout/calibration.hpp"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "distributed/gloo_group.hpp"
#include "layout/collective_rates.hpp"

namespace runner::layout {
namespace {

Calibration two_cpu_ranks() {
  Calibration c;
  c.devices = {2, false};
  c.disk_folder = std::filesystem::temp_directory_path().string();
  return c;
}

TEST(Calibration, AnExtraMicroBatchIsMeasuredAtEachCpuPrecision) {
  const Rates rates = calibrate(two_cpu_ranks());
  ASSERT_EQ(rates.extra_pass_s_per_parameter.size(), 2u);
  for (const auto& [precision, seconds] : rates.extra_pass_s_per_parameter) {
    EXPECT_TRUE(precision == Precision::fp32 || precision == Precision::bf16);
    // Under 1 us a parameter: a pass over 16 M parameters takes milliseconds, not seconds. (No
    // lower bound: on a loaded machine the one-pass step can take as long as the four-pass one.)
    EXPECT_TRUE(std::isfinite(seconds)) << precision_name(precision);
    EXPECT_LT(seconds, 1e-6) << precision_name(precision);
  }
  EXPECT_GT(rates.memory_bytes_per_s, 0);
  EXPECT_GT(rates.cast_bytes_per_s, 0);
}

TEST(Calibration, GloosCollectivesAreMeasuredBetweenTwoRanksHere) {
  if (!distributed::gloo_built()) GTEST_SKIP() << "this build has no Gloo";
  const CollectiveRates rates = measure_gloo_collectives(int64_t{8} << 20);
  for (double rate : {rates.all_reduce, rates.all_gather, rates.reduce_scatter}) {
    EXPECT_TRUE(std::isfinite(rate));
    EXPECT_GT(rate, 0);
  }
}

TEST(Calibration, AGivenLinkStandsForEveryCollective) {
  Calibration c = two_cpu_ranks();
  c.given_link = 1e9;
  const Rates given = calibrate(c);
  EXPECT_DOUBLE_EQ(given.all_reduce_bytes_per_s, 1e9);
  EXPECT_DOUBLE_EQ(given.all_gather_bytes_per_s, 1e9);
  EXPECT_DOUBLE_EQ(given.reduce_scatter_bytes_per_s, 1e9);
}

TEST(Calibration, AGpuOnPaperPassesOverItsGivenMemory) {
  if (torch::cuda::is_available()) GTEST_SKIP() << "this machine has a GPU to measure";
  Calibration c = two_cpu_ranks();
  c.devices = {8, true};
  for (Precision p : {Precision::fp32, Precision::bf16, Precision::fp16}) c.given_flops[p] = 1e15;
  c.given_link = 4.5e11;
  c.given_memory = 3e12;
  const Rates rates = calibrate(c);
  // fp32: its gradients added, two reads and a write of 4 bytes; 16-bit: and the weights cast
  // down and their gradients back, 6 bytes each.
  EXPECT_DOUBLE_EQ(rates.extra_pass_s_per_parameter.at(Precision::fp32), 12 / 3e12);
  EXPECT_DOUBLE_EQ(rates.extra_pass_s_per_parameter.at(Precision::bf16), 24 / 3e12);
  EXPECT_DOUBLE_EQ(rates.extra_pass_s_per_parameter.at(Precision::fp16), 24 / 3e12);
  EXPECT_DOUBLE_EQ(rates.cast_bytes_per_s, 3e12);
  EXPECT_DOUBLE_EQ(rates.all_gather_bytes_per_s, 4.5e11);
}

// The disk is measured through a new file of its own: a link planted at a name in the folder
// is not followed, and nothing is left behind.
TEST(Calibration, TheDiskIsMeasuredInANewFileNotThroughAPlantedLink) {
  if (torch::cuda::is_available()) GTEST_SKIP() << "this machine has a GPU to measure";
  namespace fs = std::filesystem;
  const fs::path folder = fs::temp_directory_path() / "runner_test_disk_rate";
  fs::remove_all(folder);
  fs::create_directories(folder);
  std::ofstream(folder / "victim") << "keep";
  fs::create_symlink(folder / "victim", folder / "runner-plan-disk-rate");
  Calibration c = two_cpu_ranks();
  c.disk_folder = folder.string();
  c.devices = {8, true};
  for (Precision p : {Precision::fp32, Precision::bf16, Precision::fp16}) c.given_flops[p] = 1e15;
  c.given_link = 4.5e11;
  c.given_memory = 3e12;
  EXPECT_GT(calibrate(c).disk_bytes_per_s, 0);
  EXPECT_EQ(fs::file_size(folder / "victim"), 4u);
  EXPECT_EQ(std::distance(fs::directory_iterator(folder), fs::directory_iterator()), 2);
  fs::remove_all(folder);
}

}  // namespace
}  // namespace runner::layout
