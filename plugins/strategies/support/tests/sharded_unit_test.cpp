// Tests of a sharded unit: equal padded parts, stage 3's free and gather, gradients' mean parts.
#include <gtest/gtest.h>

#include <runner/strategies/sharded_unit.hpp>
#include <runner_testing/in_process_ranks.hpp>

namespace runner::testing::support_tests {
namespace {

using strategies::ShardedUnit;
using strategies::ZeroStage;

// 5 + 4 + 1 = 10 elements, valued 0 .. 9 in order.
std::vector<torch::Tensor> three_parameters() {
  torch::Tensor values = torch::arange(10, torch::kFloat);
  return {values.narrow(0, 0, 5).clone().requires_grad_(),
          values.narrow(0, 5, 4).view({2, 2}).clone().requires_grad_(),
          values.narrow(0, 9, 1).clone().requires_grad_()};
}

// 10 elements over 3 ranks: padded to 12, 4 each; rank 2's part is 8, 9 and padding.
TEST(ShardedUnit, EachRankOwnsAnEqualPartOfThePaddedParameters) {
  on_ranks(3, [](int rank, distributed::RankConnection& c) {
    ShardedUnit unit(three_parameters(), c.communicator, ZeroStage::optimizer_state);
    EXPECT_EQ(unit.part_numel(), 4);
    torch::Tensor expected = torch::cat({torch::arange(10, torch::kFloat), torch::zeros({2})});
    EXPECT_TRUE(torch::equal(unit.master(), expected.narrow(0, int64_t{4} * rank, 4)));
    EXPECT_TRUE(unit.master().is_leaf());
    c.communicator->barrier();  // no rank leaves while another still connects
  });
}

TEST(ShardedUnit, StageThreeFreesTheParametersAndGathersThemBack) {
  on_ranks(2, [](int, distributed::RankConnection& c) {
    auto parameters = three_parameters();
    ShardedUnit unit(parameters, c.communicator, ZeroStage::parameters);
    EXPECT_TRUE(unit.gathered());
    unit.release();
    EXPECT_FALSE(unit.gathered());
    for (const auto& p : parameters) EXPECT_EQ(p.numel(), 0);
    unit.start_gather();
    unit.finish_gather();
    EXPECT_TRUE(torch::equal(parameters[1], torch::tensor({{5.f, 6.f}, {7.f, 8.f}})));
    EXPECT_TRUE(parameters[2].requires_grad());
    unit.release();
    EXPECT_EQ(parameters[0].numel(), 0);
  });
}

// Stage 2: each gradient leaves .grad for the bucket; the master's is the part of the mean.
TEST(ShardedUnit, GradientsBecomeThePartOfTheirMeanOverTheRanks) {
  on_ranks(2, [](int rank, distributed::RankConnection& c) {
    auto parameters = three_parameters();
    ShardedUnit unit(parameters, c.communicator, ZeroStage::gradients);
    unit.forget_gradients();
    for (size_t i = 0; i < parameters.size(); ++i) {
      parameters[i].mutable_grad() = torch::full_like(parameters[i], 2.0 * (rank + 1));
      unit.take_gradient(i);
      EXPECT_FALSE(parameters[i].grad().defined());
    }
    EXPECT_TRUE(unit.every_gradient_taken());
    unit.start_reduction();
    unit.finish_reduction();
    // (2 + 4) / 2 = 3 on the 10 elements, 5 per rank.
    torch::Tensor mean = torch::full({10}, 3.0);
    EXPECT_TRUE(torch::equal(unit.master().grad(), mean.narrow(0, int64_t{5} * rank, 5)));
  });
}

TEST(ShardedUnit, AGradientTakenTwiceInOneBackwardIsAnError) {
  on_ranks(1, [](int, distributed::RankConnection& c) {
    auto parameters = three_parameters();
    ShardedUnit unit(parameters, c.communicator, ZeroStage::optimizer_state);
    unit.forget_gradients();
    unit.take_gradient(0);
    EXPECT_THROW(unit.take_gradient(0), std::exception);
  });
}

}  // namespace
}  // namespace runner::testing::support_tests
