// next_token_cross_entropy against autograd's own chain (the slice, log-softmax and negative
// log-likelihood): its value and gradient at each precision, and GPT-2's training with it.
#include <gtest/gtest.h>

#include "gpt2_test_support.hpp"
#include "next_token_loss.hpp"

namespace gpt2 {
namespace {

namespace F = torch::nn::functional;

// The loss as autograd builds it from library ops: positions 0..T-2 against tokens 1..T-1.
torch::Tensor reference_loss(const torch::Tensor& logits, const torch::Tensor& tokens) {
  torch::Tensor predictions = logits.slice(1, 0, -1).reshape({-1, logits.size(2)});
  return F::cross_entropy(predictions, tokens.slice(1, 1).reshape({-1}));
}

struct LossAndGrad {
  torch::Tensor loss, grad;
};

template <typename LossFunction>
LossAndGrad loss_and_grad(LossFunction loss_of, const torch::Tensor& logits,
                          const torch::Tensor& tokens, double grad_scale = 1.0) {
  torch::Tensor leaf = logits.detach().requires_grad_();
  torch::Tensor loss = loss_of(leaf, tokens);
  (loss * grad_scale).backward();
  return {loss.detach(), leaf.grad()};
}

TEST(NextTokenLoss, FollowsAutogradsChainInValueAndGradient) {
  torch::manual_seed(3);
  torch::Tensor logits = 4 * torch::randn({3, 7, 50}, torch::kDouble);  // (B, T, V)
  torch::Tensor tokens = torch::randint(50, {3, 7}, torch::kInt64);
  const LossAndGrad fused = loss_and_grad(next_token_cross_entropy, logits, tokens, 2.5);
  const LossAndGrad chained = loss_and_grad(reference_loss, logits, tokens, 2.5);
  EXPECT_NEAR(fused.loss.item<double>(), chained.loss.item<double>(), 1e-12);
  EXPECT_TRUE(torch::allclose(fused.grad, chained.grad, 0, 1e-14));
  EXPECT_EQ(fused.grad.select(1, 6).abs().max().item<double>(), 0.0);  // predicts nothing
}

TEST(NextTokenLoss, PassesAutogradsGradientCheck) {
  torch::manual_seed(4);
  torch::Tensor logits = torch::randn({2, 4, 9}, torch::kDouble).requires_grad_();
  torch::Tensor tokens = torch::randint(9, {2, 4}, torch::kInt64);
  torch::Tensor loss = next_token_cross_entropy(logits, tokens);
  torch::Tensor analytic = torch::autograd::grad({loss}, {logits})[0];
  torch::Tensor numeric = torch::zeros_like(logits);
  const double h = 1e-6;
  torch::NoGradGuard no_grad;
  for (int64_t i = 0; i < logits.numel(); ++i) {
    torch::Tensor flat = logits.view({-1});
    const double x = flat[i].item<double>();
    flat[i] = x + h;
    const double up = next_token_cross_entropy(logits, tokens).item<double>();
    flat[i] = x - h;
    const double down = next_token_cross_entropy(logits, tokens).item<double>();
    flat[i] = x;
    numeric.view({-1})[i] = (up - down) / (2 * h);
  }
  EXPECT_TRUE(torch::allclose(analytic, numeric, 1e-6, 1e-8));
}

TEST(NextTokenLoss, SixteenBitLogitsGetAFloatLossAndAGradientOfTheirOwnType) {
  torch::manual_seed(5);
  torch::Tensor logits = (3 * torch::randn({2, 5, 40})).to(torch::kBFloat16);
  torch::Tensor tokens = torch::randint(40, {2, 5}, torch::kInt64);
  const LossAndGrad fused = loss_and_grad(next_token_cross_entropy, logits, tokens);
  const LossAndGrad chained =
      loss_and_grad(reference_loss, logits.to(torch::kFloat), tokens);  // what autocast does
  EXPECT_EQ(fused.loss.scalar_type(), torch::kFloat);
  EXPECT_EQ(fused.grad.scalar_type(), torch::kBFloat16);
  EXPECT_NEAR(fused.loss.item<double>(), chained.loss.item<double>(), 1e-6);
  // Each gradient is the float one rounded once to bf16: within half of bf16's step of 2^-8.
  EXPECT_TRUE(torch::allclose(fused.grad.to(torch::kFloat), chained.grad, 1.0 / 256, 1e-7));
}

TEST(NextTokenLoss, ARetainedGraphGivesTheSameGradientTwice) {
  torch::Tensor logits = torch::randn({1, 3, 5}).requires_grad_();
  torch::Tensor loss = next_token_cross_entropy(logits, torch::tensor({{1, 2, 3}}));
  loss.backward({}, /*retain_graph=*/true);
  torch::Tensor first = logits.grad().clone();
  logits.mutable_grad().zero_();
  loss.backward();
  EXPECT_TRUE(torch::equal(logits.grad(), first));
}

// GPT-2 trained with the fused loss follows the same model trained with the chained one.
TEST(NextTokenLoss, Gpt2TrainsAsWithAutogradsChainFor50Steps) {
  test_support::FakeOpLibrary ops;
  const auto train = [&](bool fused) {
    torch::manual_seed(12);
    Gpt2 model(Gpt2Options{}, test_support::context(ops, test_support::token_data(512, 16)));
    torch::optim::AdamW adamw(model.parameters(), torch::optim::AdamWOptions(1e-3));
    torch::Tensor batch = torch::randint(512, {4, 16}, torch::kInt64);
    std::vector<double> losses;
    for (int step = 0; step < 50; ++step) {
      adamw.zero_grad();
      torch::Tensor logits = model.forward(batch);
      torch::Tensor loss = fused ? model.loss(logits, batch) : reference_loss(logits, batch);
      loss.backward();
      adamw.step();
      losses.push_back(loss.item<double>());
    }
    return losses;
  };
  const std::vector<double> fused = train(true), chained = train(false);
  for (size_t step = 0; step < fused.size(); ++step)
    EXPECT_NEAR(fused[step], chained[step], 1e-5 * chained[step]) << "step " << step;
  EXPECT_LT(fused.back(), fused.front() - 1.0);  // it learns the batch
}

}  // namespace
}  // namespace gpt2
