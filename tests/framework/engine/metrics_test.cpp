#include <gtest/gtest.h>

#include "engine/metrics.hpp"

namespace runner::engine {
namespace {

TEST(PassMetrics, AveragesLossBySamplesAndCountsHitsPerClass) {
  PassMetrics m(3);
  // Predictions 0, 1, 2, 0 against targets 0, 1, 1, 2: two right.
  auto outputs = torch::tensor({{9.f, 0.f, 0.f}, {0.f, 9.f, 0.f}, {0.f, 0.f, 9.f}, {9.f, 0.f, 0.f}});
  m.add(torch::tensor(2.0), outputs, torch::tensor({0, 1, 1, 2}, torch::kInt64), true);
  m.add(torch::tensor(5.0), outputs.slice(0, 0, 1), torch::tensor({0}, torch::kInt64), true);
  EXPECT_EQ(m.samples(), 5);
  EXPECT_DOUBLE_EQ(m.mean_loss(), (2.0 * 4 + 5.0 * 1) / 5);
  EXPECT_DOUBLE_EQ(m.accuracy(), 3.0 / 5);
  EXPECT_EQ(m.per_class_accuracy(), (std::vector<double>{1.0, 0.5, 0.0}));
}

TEST(PassMetrics, PerClassIsEmptyWhenNotAsked) {
  PassMetrics m(2);
  m.add(torch::tensor(1.0), torch::tensor({{1.f, 0.f}}), torch::tensor({0}, torch::kInt64), false);
  EXPECT_TRUE(m.per_class_accuracy().empty());
}

}  // namespace
}  // namespace runner::engine
