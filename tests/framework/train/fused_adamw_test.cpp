// Tests of FusedAdamW: LibTorch's AdamW step for step, its fallbacks, state and version counters.
#include "train/fused_adamw.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace runner::train {
namespace {

torch::optim::AdamWOptions options() {
  return torch::optim::AdamWOptions(1e-2).betas({0.9, 0.99}).eps(1e-8).weight_decay(0.1);
}

torch::nn::Sequential model(torch::Dtype dtype = torch::kFloat, int64_t hidden = 32) {
  torch::manual_seed(7);
  torch::nn::Sequential net(torch::nn::Linear(16, hidden), torch::nn::Tanh(),
                            torch::nn::Linear(hidden, 4));
  net->to(dtype);
  return net;
}

void copy_parameters(torch::nn::Sequential& from, torch::nn::Sequential& to) {
  torch::NoGradGuard no_grad;
  auto source = from->parameters();
  auto target = to->parameters();
  for (size_t i = 0; i < source.size(); ++i) target[i].copy_(source[i]);
}

// One step on a fixed batch of the step's number; returns the loss before the step.
double train_step(torch::nn::Sequential& net, torch::optim::Optimizer& optimizer, int step) {
  torch::manual_seed(1000 + step);
  const auto dtype = net->parameters()[0].scalar_type();
  auto x = torch::randn({8, 16}).to(dtype), y = torch::randn({8, 4}).to(dtype);
  optimizer.zero_grad();
  auto loss = torch::mse_loss(net->forward(x), y);
  loss.backward();
  optimizer.step();
  return loss.item<double>();
}

// The largest over the parameters of |a - b| / |b|, in the Euclidean norm.
double largest_relative_difference(torch::nn::Sequential& a, torch::nn::Sequential& b) {
  double largest = 0;
  auto pa = a->parameters(), pb = b->parameters();
  for (size_t i = 0; i < pa.size(); ++i)
    largest = std::max(largest, ((pa[i] - pb[i]).norm() / pb[i].norm()).item<double>());
  return largest;
}

TEST(FusedAdamW, OneStepMatchesAdamWsFormula) {
  auto p = torch::ones({1}, torch::requires_grad());
  FusedAdamW optimizer({p}, torch::optim::AdamWOptions(0.1).betas({0.9, 0.999}).weight_decay(0.01));
  p.mutable_grad() = torch::full({1}, 0.5);
  ASSERT_TRUE(optimizer.fuses_next_step());
  optimizer.step();
  // m = 0.1 * 0.5 = 0.05, v = 0.001 * 0.25; m / (1 - 0.9) = 0.5, sqrt(v / (1 - 0.999)) = 0.5:
  // p = 1 * (1 - 0.1 * 0.01) - 0.1 * 0.5 / (0.5 + 1e-8).
  EXPECT_NEAR(p.item<double>(), 0.999 - 0.1 * 0.5 / (0.5 + 1e-8), 1e-7);
}

TEST(FusedAdamW, FollowsLibTorchsAdamWFor50Steps) {
  auto fused_net = model(), reference_net = model();
  FusedAdamW fused(fused_net->parameters(), options());
  torch::optim::AdamW reference(reference_net->parameters(), options());
  for (int step = 0; step < 50; ++step) {
    ASSERT_TRUE(fused.fuses_next_step());
    const double a = train_step(fused_net, fused, step),
                 b = train_step(reference_net, reference, step);
    ASSERT_NEAR(a, b, 1e-5 * std::abs(b)) << "step " << step;
  }
  EXPECT_LT(largest_relative_difference(fused_net, reference_net), 1e-5);
}

// The gradients are drawn, not computed: a forward and backward on several threads may round
// otherwise than on one (a GEMM's blocking follows the thread count on some CPUs), and only
// the optimizer's step is under test.
TEST(FusedAdamW, TheBitsDoNotDependOnTheThreadCount) {
  const int threads = at::get_num_threads();
  std::vector<torch::nn::Sequential> nets;
  for (int count : {1, 2}) {
    at::set_num_threads(count);
    // A first layer of 65,536 weights: two threads split it.
    nets.push_back(model(torch::kFloat, 4096));
    FusedAdamW optimizer(nets.back()->parameters(), options());
    for (int step = 0; step < 5; ++step) {
      torch::manual_seed(1000 + step);
      for (auto& p : nets.back()->parameters()) p.mutable_grad() = torch::randn_like(p);
      optimizer.step();
    }
  }
  at::set_num_threads(threads);
  auto one = nets[0]->parameters(), two = nets[1]->parameters();
  for (size_t i = 0; i < one.size(); ++i) EXPECT_TRUE(torch::equal(one[i], two[i])) << i;
}

TEST(FusedAdamW, DoublesAndAmsgradTakeLibTorchsStepBitForBit) {
  for (bool amsgrad : {false, true}) {
    const auto dtype = amsgrad ? torch::kFloat : torch::kDouble;
    auto fused_net = model(dtype), reference_net = model(dtype);
    FusedAdamW fused(fused_net->parameters(), options().amsgrad(amsgrad));
    torch::optim::AdamW reference(reference_net->parameters(), options().amsgrad(amsgrad));
    for (int step = 0; step < 5; ++step) {
      train_step(fused_net, fused, step);
      train_step(reference_net, reference, step);
      EXPECT_FALSE(fused.fuses_next_step());
    }
    EXPECT_EQ(largest_relative_difference(fused_net, reference_net), 0.0) << amsgrad;
  }
}

TEST(FusedAdamW, AParameterWithoutAGradientIsLeftAloneAndGetsNoState) {
  auto used = torch::ones({3}, torch::requires_grad());
  auto unused = torch::ones({3}, torch::requires_grad());
  FusedAdamW optimizer({used, unused}, options());
  (used * 2).sum().backward();
  optimizer.step();
  EXPECT_TRUE(torch::equal(unused, torch::ones({3})));
  EXPECT_FALSE(torch::equal(used, torch::ones({3})));
  EXPECT_EQ(optimizer.state().size(), 1u);
}

TEST(FusedAdamW, AZeroLearningRateLeavesTheParametersBitForBit) {
  auto net = model();
  FusedAdamW optimizer(net->parameters(), options().lr(0));
  std::vector<torch::Tensor> before;
  for (const auto& p : net->parameters()) before.push_back(p.detach().clone());
  for (int step = 0; step < 3; ++step) train_step(net, optimizer, step);
  auto after = net->parameters();
  for (size_t i = 0; i < before.size(); ++i) EXPECT_TRUE(torch::equal(before[i], after[i])) << i;
}

TEST(FusedAdamW, ItsSavedStateLoadsIntoEitherOptimizerAndContinuesTheSame) {
  auto net = model();
  FusedAdamW optimizer(net->parameters(), options());
  for (int step = 0; step < 10; ++step) train_step(net, optimizer, step);
  std::stringstream saved;
  {
    torch::serialize::OutputArchive archive;
    optimizer.save(archive);
    archive.save_to(saved);
  }
  auto resumed_net = model(), libtorch_net = model();
  copy_parameters(net, resumed_net);
  copy_parameters(net, libtorch_net);
  FusedAdamW resumed(resumed_net->parameters(), options());
  torch::optim::AdamW libtorch(libtorch_net->parameters(), options());
  for (torch::optim::Optimizer* o :
       std::initializer_list<torch::optim::Optimizer*>{&resumed, &libtorch}) {
    torch::serialize::InputArchive archive;
    std::stringstream copy(saved.str());
    archive.load_from(copy);
    o->load(archive);
  }
  for (int step = 10; step < 15; ++step) {
    train_step(net, optimizer, step);
    train_step(resumed_net, resumed, step);
    train_step(libtorch_net, libtorch, step);
  }
  EXPECT_EQ(largest_relative_difference(resumed_net, net), 0.0);
  EXPECT_LT(largest_relative_difference(libtorch_net, net), 1e-5);
}

TEST(FusedAdamW, AGraphThatSavedAParameterSeesTheStepChangeIt) {
  auto p = torch::ones({3}, torch::requires_grad());
  FusedAdamW optimizer({p}, options());
  auto saved_p = (p * p).sum();  // mul saves p for its backward
  (p * 3).sum().backward();
  optimizer.step();
  EXPECT_THROW(saved_p.backward(), c10::Error);
}

TEST(FusedAdamW, AClosureRunsFirstAndItsLossIsReturned) {
  auto p = torch::ones({2}, torch::requires_grad());
  FusedAdamW optimizer({p}, options().weight_decay(0));
  auto loss = optimizer.step([&] {
    optimizer.zero_grad();
    auto l = (p * -1).sum();
    l.backward();
    return l;
  });
  EXPECT_DOUBLE_EQ(loss.item<double>(), -2.0);
  // The gradient -1 moves each element up by lr: m / sqrt(v) is -1 after bias correction.
  EXPECT_NEAR(p[0].item<double>(), 1.01, 1e-6);
}

}  // namespace
}  // namespace runner::train
