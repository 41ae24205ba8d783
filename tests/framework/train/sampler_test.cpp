// Tests of the sampler: permutations from seed and epoch only, the last partial batch kept, a
// shard cut into as many batches as its peers'.
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

// Shards of 5 and 4 samples in batches of 2 (3 and 2 batches): both step through 2, the
// larger one's last batch taking its 5th sample.
TEST(Sampler, BatchesInACountTheLastTakingTheRest) {
  const auto longer = batches_in(torch::arange(5), 2, 2);
  ASSERT_EQ(longer.size(), 2u);
  EXPECT_TRUE(longer[1].equal(torch::arange(2, 5)));
  const auto shorter = batches_in(torch::arange(4), 2, 2);
  ASSERT_EQ(shorter.size(), 2u);
  EXPECT_EQ(shorter[1].size(0), 2);
  EXPECT_EQ(batches_in(torch::arange(3), 2, 5).size(), 2u);  // fewer than asked: all kept
  EXPECT_TRUE(batches_in(torch::arange(3), 2, 0).empty());
}

}  // namespace
}  // namespace runner::train
