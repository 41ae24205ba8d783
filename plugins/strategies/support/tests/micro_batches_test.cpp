// Tests of the micro-batch split: equal weighted pieces, uneven rows, no empty piece, one piece.
#include <gtest/gtest.h>

#include <runner/strategies/micro_batches.hpp>

namespace runner::strategies::support_tests {
namespace {

Batch rows(int64_t n) {
  return {torch::arange(n).unsqueeze(1), torch::arange(n)};  // (n, 1), (n)
}

TEST(MicroBatches, EqualPiecesOfConsecutiveRowsWeightedByTheirShare) {
  auto micro = split_micro_batches(rows(8), 4);
  ASSERT_EQ(micro.size(), 4u);
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_TRUE(torch::equal(micro[i].batch.targets, torch::arange(2 * i, 2 * i + 2)));
    EXPECT_EQ(micro[i].batch.inputs.size(0), 2);
    EXPECT_DOUBLE_EQ(micro[i].weight, 0.25);
  }
}

TEST(MicroBatches, AShortBatchGivesTheFirstPiecesOneMoreRow) {
  auto micro = split_micro_batches(rows(7), 3);  // 3 + 2 + 2
  ASSERT_EQ(micro.size(), 3u);
  EXPECT_EQ(micro[0].batch.targets.size(0), 3);
  EXPECT_EQ(micro[2].batch.targets[0].item<int64_t>(), 5);
  double total = 0;
  for (const auto& m : micro) total += m.weight;
  EXPECT_DOUBLE_EQ(total, 1.0);
  EXPECT_DOUBLE_EQ(micro[0].weight, 3.0 / 7);
}

TEST(MicroBatches, FewerRowsThanPiecesGiveOneRowEachAndNoEmptyPiece) {
  auto micro = split_micro_batches(rows(2), 4);
  ASSERT_EQ(micro.size(), 2u);
  EXPECT_DOUBLE_EQ(micro[1].weight, 0.5);
}

TEST(MicroBatches, OnePieceIsTheBatchItself) {
  Batch batch = rows(5);
  auto micro = split_micro_batches(batch, 1);
  ASSERT_EQ(micro.size(), 1u);
  EXPECT_TRUE(micro[0].batch.inputs.is_same(batch.inputs) ||
              micro[0].batch.inputs.data_ptr() == batch.inputs.data_ptr());
  EXPECT_DOUBLE_EQ(micro[0].weight, 1.0);
}

TEST(MicroBatches, WeightedMeanLossesSumToTheBatchsMeanLoss) {
  const auto values = torch::arange(7, torch::kDouble);  // one loss per row: mean 3
  const Batch batch{values.unsqueeze(1), values};
  const auto micro = split_micro_batches(batch, 3);
  double sum = 0;
  for (const auto& m : micro)
    sum += weighted_loss(m.batch.targets.mean(), m, micro.size()).item<double>();
  EXPECT_DOUBLE_EQ(sum, 3.0);
  const auto alone = torch::tensor(2.5);
  EXPECT_TRUE(weighted_loss(alone, split_micro_batches(batch, 1)[0], 1).is_same(alone));
}

TEST(MicroBatches, JoinedPredictionsAreTheWholeBatchsArgmax) {
  const auto outputs = torch::randn({7, 4}, torch::TensorOptions().requires_grad(true));
  const Batch batch{outputs, torch::zeros({7}, torch::kLong)};
  std::vector<torch::Tensor> parts;
  for (const auto& m : split_micro_batches(batch, 3))
    parts.push_back(predictions_of(m.batch.inputs));
  const auto joined = joined_predictions(parts);
  EXPECT_TRUE(torch::equal(joined, outputs.argmax(-1)));
  EXPECT_FALSE(joined.requires_grad());
}

}  // namespace
}  // namespace runner::strategies::support_tests
