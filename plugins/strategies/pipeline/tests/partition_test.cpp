// Tests of the cuts: by count the first stages take more, by weight or FLOPs the heaviest is light.
#include <gtest/gtest.h>

#include "../partition.hpp"

namespace runner::strategies::pipeline_tests {
namespace {

using Ranges = std::vector<LayerRange>;

TEST(Partition, ByCountTheFirstStagesTakeTheRemainder) {
  EXPECT_EQ(balance_by_count(14, 4), (Ranges{{0, 4}, {4, 8}, {8, 11}, {11, 14}}));
  EXPECT_EQ(balance_by_count(2, 2), (Ranges{{0, 1}, {1, 2}}));
}

// GPT-2 small's layers: the embedding (39.4M), 12 blocks of 7.1M, the head (1536 of its own).
TEST(Partition, ByWeightTheHeaviestStageIsAsLightAsCanBe) {
  std::vector<double> gpt2{39.4, 7.1, 7.1, 7.1, 7.1, 7.1, 7.1,
                           7.1,  7.1, 7.1, 7.1, 7.1, 7.1, 0.0015};
  const Ranges two = balance_by_weight(gpt2, 2);
  // The embedding and 3 blocks (60.7) against 9 blocks and the head (63.9); one block more
  // on either side makes that side 67.8 or 71.0.
  EXPECT_EQ(two, (Ranges{{0, 4}, {4, 14}}));
  EXPECT_EQ(balance_by_weight({1, 1, 1, 1}, 2), (Ranges{{0, 2}, {2, 4}}));
  EXPECT_EQ(balance_by_weight({5, 1, 1, 1, 1, 1}, 2), (Ranges{{0, 1}, {1, 6}}));
}

TEST(Partition, EveryStageGetsALayer) {
  EXPECT_EQ(balance_by_weight({100, 0, 0}, 3), (Ranges{{0, 1}, {1, 2}, {2, 3}}));
  try {
    balance_by_count(3, 4);
    FAIL() << "4 stages of 3 layers";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "4 pipeline stages need at least as many layers; the model lists 3");
  }
  EXPECT_THROW(balance_by_weight({1, 2}, 3), std::invalid_argument);
}

// GPT-2 small at 1024 tokens: the embedding does no matmul, a block 24 T h^2 + 4 T^2 h = 17.7
// GFLOPs, the head 2 T h V = 79.1 GFLOPs (4.5 blocks). By FLOPs the head's stage takes fewer
// blocks; by parameters the embedding's stage does.
TEST(Partition, ByFlopsTheHeadsStageTakesFewerBlocks) {
  LayerWeights gpt2;
  gpt2.parameters = {39.4, 7.1, 7.1, 7.1, 7.1, 7.1, 7.1, 7.1, 7.1, 7.1, 7.1, 7.1, 7.1, 0.0015};
  gpt2.flops = {0, 17.7, 17.7, 17.7, 17.7, 17.7, 17.7, 17.7, 17.7, 17.7, 17.7, 17.7, 17.7, 79.1};
  // 8 blocks (141.6) against 4 blocks and the head (149.9); one more block moved either way
  // makes a side 159.3 or 167.6.
  EXPECT_EQ(cut_layers("flops", gpt2, 2), (Ranges{{0, 9}, {9, 14}}));
  EXPECT_EQ(cut_layers("parameters", gpt2, 2), (Ranges{{0, 4}, {4, 14}}));
  EXPECT_EQ(cut_layers("layers", gpt2, 2), (Ranges{{0, 7}, {7, 14}}));
  // Layers that say no FLOPs: cut by parameters.
  gpt2.flops.assign(gpt2.flops.size(), 0);
  EXPECT_FALSE(says_flops(gpt2));
  EXPECT_EQ(cut_layers("flops", gpt2, 2), (Ranges{{0, 4}, {4, 14}}));
}

}  // namespace
}  // namespace runner::strategies::pipeline_tests
