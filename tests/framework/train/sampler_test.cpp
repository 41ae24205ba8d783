// Tests of the sampler: permutations from seed and epoch only, the last partial batch kept.
#include <gtest/gtest.h>

#include "train/sampler.hpp"

namespace runner::train {
namespace {

TEST(Sampler, APermutationDependsOnSeedAndEpochOnly) {
  auto a = epoch_permutation(100, 7, 1);
  EXPECT_TRUE(a.equal(epoch_permutation(100, 7, 1)));
  EXPECT_FALSE(a.equal(epoch_permutation(100, 7, 2)));
  EXPECT_FALSE(a.equal(epoch_permutation(100, 8, 1)));
  EXPECT_TRUE(std::get<0>(a.sort()).equal(torch::arange(100)));
}

TEST(Sampler, TheGlobalGeneratorIsUntouched) {
  torch::manual_seed(3);
  auto expected = torch::rand({4});
  torch::manual_seed(3);
  epoch_permutation(50, 1, 1);
  EXPECT_TRUE(torch::rand({4}).equal(expected));
}

TEST(Sampler, BatchesKeepTheLastPartialOne) {
  auto batches = batches_of(torch::arange(10), 4);
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(batches[2].size(0), 2);
  EXPECT_EQ(batches[1][0].item<int64_t>(), 4);
}

}  // namespace
}  // namespace runner::train
