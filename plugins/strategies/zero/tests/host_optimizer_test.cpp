// The host-offloaded optimizer steps host copies of the masters exactly as the optimizer would
// step the masters, and leaves no state beside the masters.
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include "../host_optimizer.hpp"

namespace runner::testing {
namespace {

using strategies::HostOptimizer;

std::unique_ptr<torch::optim::Optimizer> adam(std::vector<torch::Tensor> params) {
  return std::make_unique<torch::optim::Adam>(std::move(params), torch::optim::AdamOptions(1e-2));
}

std::vector<torch::Tensor> leaves(uint64_t seed) {
  torch::manual_seed(seed);
  return {torch::randn({7}).requires_grad_(true), torch::randn({3, 2}).requires_grad_(true)};
}

// Gradients of step `step`, the same for both sets of masters.
void give_gradients(const std::vector<torch::Tensor>& masters, int step) {
  auto generator = at::make_generator<at::CPUGeneratorImpl>(100 + step);
  for (const auto& m : masters) m.mutable_grad() = torch::randn(m.sizes(), generator);
}

TEST(HostOptimizer, StepsAsTheOptimizerWouldAndKeepsItsStateOnTheHostSide) {
  std::vector<torch::Tensor> plain = leaves(4), offloaded = leaves(4);
  auto expected = adam(plain);
  HostOptimizer host(offloaded, adam);
  for (int step = 0; step < 20; ++step) {
    const double lr = step < 10 ? 1e-2 : 1e-3;  // a schedule reaches the host's optimizer
    expected->param_groups()[0].options().set_lr(lr);
    host.param_groups()[0].options().set_lr(lr);
    give_gradients(plain, step);
    give_gradients(offloaded, step);
    expected->step();
    host.step();
    for (size_t i = 0; i < plain.size(); ++i)
      ASSERT_TRUE(torch::equal(offloaded[i], plain[i])) << "step " << step << " tensor " << i;
  }
  EXPECT_TRUE(host.state().empty());
  EXPECT_EQ(host.on_host().state().size(), plain.size());
}

}  // namespace
}  // namespace runner::testing
