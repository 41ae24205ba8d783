// The file-offloaded optimizer steps its parts exactly as one optimizer over all of them would,
// with the next part's reading and the last one's writing overlapping each step, and a state
// file that cannot be read, or written (a full disk, a file-size limit), fails the step naming it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <runner/errors.hpp>

#include <csignal>
#include <fstream>

#include "../offloaded_optimizer.hpp"
#include "seeded_gradients.hpp"

using ::testing::HasSubstr;

namespace runner::testing::zero_tests {
namespace {

using strategies::OffloadedOptimizer;
namespace fs = std::filesystem;

std::unique_ptr<torch::optim::Optimizer> adamw(std::vector<torch::Tensor> params) {
  return std::make_unique<torch::optim::AdamW>(std::move(params), torch::optim::AdamWOptions(1e-2));
}

// Five parts of different sizes, so reads and writes of unequal length overlap.
std::vector<torch::Tensor> masters(uint64_t seed) {
  torch::manual_seed(seed);
  std::vector<torch::Tensor> parts;
  for (int64_t size : {1000, 7, 300000, 64, 5000}) parts.push_back(torch::randn({size}));
  for (auto& p : parts) p.requires_grad_(true);
  return parts;
}

fs::path scratch(const std::string& name) {
  return fs::temp_directory_path() / ("runner-offload-" + name + "-" + std::to_string(getpid()));
}

TEST(OffloadedOptimizer, StepsEveryPartAsOneOptimizerWouldBitForBit) {
  std::vector<torch::Tensor> plain = masters(3), offloaded = masters(3);
  auto expected = adamw(plain);
  OffloadedOptimizer files(offloaded, adamw, scratch("same"));
  for (int step = 0; step < 10; ++step) {
    give_seeded_gradients(plain, 500 + step);
    give_seeded_gradients(offloaded, 500 + step);
    expected->step();
    files.step();
    EXPECT_EQ(files.part(2).state().size(), 0u) << "no state is left in memory after a step";
  }
  for (size_t i = 0; i < plain.size(); ++i) EXPECT_TRUE(torch::equal(plain[i], offloaded[i])) << i;
  EXPECT_GT(files.bytes_on_disk(), 2 * 4 * 301071u) << "two fp32 states of every part";
}

TEST(OffloadedOptimizer, AStateFileThatCannotBeReadFailsTheStepNamingIt) {
  std::vector<torch::Tensor> parts = masters(5);
  const fs::path folder = scratch("broken");
  {
    OffloadedOptimizer files(parts, adamw, folder);
    give_seeded_gradients(parts, 500);
    files.step();
    std::ofstream(folder / "part3.pt", std::ios::trunc) << "not a state file";
    give_seeded_gradients(parts, 501);
    try {
      files.step();
      ADD_FAILURE() << "a broken state file went unnoticed";
    } catch (const RunError& e) {
      EXPECT_THAT(std::string(e.what()), HasSubstr("part3.pt")) << e.what();
    }
  }
  EXPECT_FALSE(fs::exists(folder)) << "the folder goes with the optimizer, after a failure too";
}

// A write that fails (here past a file-size limit of 64 KiB; a full disk fails the same writes
// with ENOSPC) is a DataError naming the file: torch::save straight to the file ended the process
// in std::terminate, its writer throwing again from its destructor.
TEST(OffloadedOptimizer, AStateFileThatCannotBeWrittenFailsTheStepNamingIt) {
  std::vector<torch::Tensor> parts = masters(7);
  const fs::path folder = scratch("unwritable");
  rlimit before{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &before), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  std::string said;
  {
    OffloadedOptimizer files(parts, adamw, folder);
    give_seeded_gradients(parts, 500);
    rlimit small = before;
    small.rlim_cur = 64 * 1024;  // part 2's two states take 2.4 MB
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
    try {
      files.step();
    } catch (const DataError& e) {
      said = e.what();
    }
    setrlimit(RLIMIT_FSIZE, &before);
  }
  std::signal(SIGXFSZ, old_handler);
  EXPECT_EQ(said, "the file size limit (ulimit -f) stops the writing of " +
                      (folder / "part2.pt.tmp").string());
  EXPECT_FALSE(fs::exists(folder));
}

}  // namespace
}  // namespace runner::testing::zero_tests
