// Tests of the metrics: loss averaged by samples or tokens, hits counted per class when asked.
#include <gtest/gtest.h>

#include <cmath>

#include "train/metrics.hpp"

namespace runner::train {
namespace {

TEST(PassMetrics, AveragesLossBySamplesAndCountsHitsPerClass) {
  PassMetrics m(3);
  // Predictions 0, 1, 2, 0 against targets 0, 1, 1, 2: two right.
  auto predictions = torch::tensor({0, 1, 2, 0}, torch::kInt64);
  m.add(torch::tensor(2.0), predictions, torch::tensor({0, 1, 1, 2}, torch::kInt64), true);
  m.add(torch::tensor(5.0), predictions.slice(0, 0, 1), torch::tensor({0}, torch::kInt64), true);
  EXPECT_EQ(m.samples(), 5);
  EXPECT_DOUBLE_EQ(m.mean_loss(), (2.0 * 4 + 5.0 * 1) / 5);
  EXPECT_DOUBLE_EQ(m.accuracy(), 3.0 / 5);
  EXPECT_EQ(m.per_class_accuracy(), (std::vector<double>{1.0, 0.5, 0.0}));
}

TEST(PassMetrics, PerClassIsEmptyWhenNotAsked) {
  PassMetrics m(2);
  m.add(torch::tensor(1.0), torch::tensor({0}, torch::kInt64), torch::tensor({0}, torch::kInt64),
        false);
  EXPECT_TRUE(m.per_class_accuracy().empty());
}

// (1, T) the token predicted at each position.
torch::Tensor predicting(const std::vector<int64_t>& predicted) {
  return torch::tensor(predicted, torch::kInt64).unsqueeze(0);
}

TEST(PassMetrics, LanguageModelCountsNextTokenHitsAndAveragesLossPerToken) {
  PassMetrics m(4, Task::language_modeling);
  auto targets = torch::tensor({{3, 1, 2, 0}}, torch::kInt64);
  // Position t predicts targets[t + 1] = 1, 2, 0: right at t = 0 and t = 2, the last unused.
  m.add(torch::tensor(2.0), predicting({1, 3, 0, 2}), targets, true);
  m.add(torch::tensor(0.5), predicting({1, 2, 0, 0}), targets, true);
  EXPECT_EQ(m.samples(), 2);
  EXPECT_DOUBLE_EQ(m.mean_loss(), (2.0 * 3 + 0.5 * 3) / 6);
  EXPECT_DOUBLE_EQ(m.accuracy(), 5.0 / 6);
  EXPECT_DOUBLE_EQ(m.perplexity(), std::exp((2.0 * 3 + 0.5 * 3) / 6));
  EXPECT_TRUE(m.per_class_accuracy().empty());
}

}  // namespace
}  // namespace runner::train
