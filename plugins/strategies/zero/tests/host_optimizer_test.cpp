// The host-offloaded optimizer steps host copies of the masters exactly as the optimizer would
// step the masters, and leaves no state beside the masters.
#include <gtest/gtest.h>

#include <runner/strategies/state_pieces.hpp>

#include "../host_optimizer.hpp"
#include "runner_testing/layered_model.hpp"
#include "seeded_gradients.hpp"

namespace runner::testing::zero_tests {
namespace {

using strategies::HostOptimizer;
using strategies::testing::adam;

std::vector<torch::Tensor> leaves(uint64_t seed) {
  torch::manual_seed(seed);
  return {torch::randn({7}).requires_grad_(true), torch::randn({3, 2}).requires_grad_(true)};
}

TEST(HostOptimizer, StepsAsTheOptimizerWouldAndKeepsItsStateOnTheHostSide) {
  std::vector<torch::Tensor> plain = leaves(4), offloaded = leaves(4);
  auto expected = adam(plain);
  HostOptimizer host(offloaded, adam);
  for (int step = 0; step < 20; ++step) {
    const double lr = step < 10 ? 1e-2 : 1e-3;  // a schedule reaches the host's optimizer
    expected->param_groups()[0].options().set_lr(lr);
    host.param_groups()[0].options().set_lr(lr);
    give_seeded_gradients(plain, 100 + step);
    give_seeded_gradients(offloaded, 100 + step);
    expected->step();
    host.step();
    for (size_t i = 0; i < plain.size(); ++i)
      ASSERT_TRUE(torch::equal(offloaded[i], plain[i])) << "step " << step << " tensor " << i;
  }
  EXPECT_TRUE(host.state().empty());
  EXPECT_EQ(host.on_host().state().size(), plain.size());
}

// A checkpoint after 5 steps, loaded into another host optimizer (masters first, then the
// optimizer's state, then masters_loaded()), goes on as the one never stopped.
TEST(HostOptimizer, ItsStateLoadedIntoAnotherGoesOnAlike) {
  std::vector<torch::Tensor> first = leaves(4), second = leaves(9);
  HostOptimizer running(first, adam);
  for (int step = 0; step < 5; ++step) {
    give_seeded_gradients(first, 100 + step);
    running.step();
  }
  const std::vector<std::vector<strategies::Placement>> placements = {
      {strategies::whole_placement("a", first[0])}, {strategies::whole_placement("b", first[1])}};
  strategies::OptimizerState saving(running.on_host(), placements);
  std::map<std::string, torch::Tensor> saved;
  for (const auto& piece : saving.pieces(true)) saved[piece.name] = piece.values.clone();
  EXPECT_TRUE(saved.count("optimizer/exp_avg/a"));
  EXPECT_EQ(saved.at("optimizer/step/b").item<int64_t>(), 5);

  HostOptimizer resumed(second, adam);
  {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < first.size(); ++i) second[i].copy_(first[i]);
  }
  strategies::OptimizerState loading(resumed.on_host(), placements);
  for (const auto& piece : loading.pieces(true)) {
    torch::NoGradGuard no_grad;
    piece.values.copy_(saved.at(piece.name));
  }
  loading.loaded();
  resumed.masters_loaded();
  for (int step = 5; step < 10; ++step) {
    give_seeded_gradients(first, 100 + step);
    give_seeded_gradients(second, 100 + step);
    running.step();
    resumed.step();
    for (size_t i = 0; i < first.size(); ++i)
      ASSERT_TRUE(torch::equal(second[i], first[i])) << "step " << step << " tensor " << i;
  }
}

}  // namespace
}  // namespace runner::testing::zero_tests
