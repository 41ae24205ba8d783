// runner::compat::causal_self_attention against attention written out one query at a time.
#include <gtest/gtest.h>
#include <runner/compat.hpp>

#include <cmath>
#include <vector>

namespace {

// For each query t: weights softmax(q_t . k_s / sqrt(d)) over the keys s <= t, and the
// weighted sum of their values. q, k, v: (B, heads, T, d).
torch::Tensor reference_attention(const torch::Tensor& q, const torch::Tensor& k,
                                  const torch::Tensor& v) {
  const int64_t steps = q.size(2);
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.size(3)));
  torch::Tensor out = torch::zeros_like(q);
  for (int64_t t = 0; t < steps; ++t) {
    torch::Tensor query = q.select(2, t).unsqueeze(2);      // (B, heads, 1, d)
    torch::Tensor keys = k.slice(2, 0, t + 1);              // (B, heads, t+1, d)
    torch::Tensor scores = (query * keys).sum(-1) * scale;  // (B, heads, t+1)
    torch::Tensor weights = scores.exp() / scores.exp().sum(-1, true);
    torch::Tensor values = v.slice(2, 0, t + 1);  // (B, heads, t+1, d)
    out.select(2, t).copy_((weights.unsqueeze(-1) * values).sum(2));
  }
  return out;
}

struct Qkv {
  torch::Tensor q, k, v;
};

Qkv random_qkv() {
  torch::manual_seed(3);
  auto options = torch::TensorOptions().dtype(torch::kFloat64);
  return {torch::randn({2, 3, 7, 5}, options), torch::randn({2, 3, 7, 5}, options),
          torch::randn({2, 3, 7, 5}, options)};
}

TEST(CausalSelfAttention, MatchesAttentionWrittenOutPerQuery) {
  Qkv x = random_qkv();
  torch::Tensor expected = reference_attention(x.q, x.k, x.v);
  for (bool training : {false, true}) {
    torch::Tensor out = runner::compat::causal_self_attention(x.q, x.k, x.v, 0.0, training);
    ASSERT_EQ(out.sizes(), x.q.sizes());
    EXPECT_TRUE(torch::allclose(out, expected, 1e-10, 1e-10)) << "training " << training;
  }
}

TEST(CausalSelfAttention, GradientsMatchAttentionWrittenOutPerQuery) {
  Qkv x = random_qkv();
  std::vector<torch::Tensor> leaves{x.q.requires_grad_(), x.k.requires_grad_(),
                                    x.v.requires_grad_()};
  torch::Tensor weights = torch::randn_like(x.q);  // a loss that weighs every output
  auto grads = torch::autograd::grad(
      {(runner::compat::causal_self_attention(x.q, x.k, x.v, 0.0, true) * weights).sum()}, leaves);
  auto expected =
      torch::autograd::grad({(reference_attention(x.q, x.k, x.v) * weights).sum()}, leaves);
  for (size_t i = 0; i < leaves.size(); ++i)
    EXPECT_TRUE(torch::allclose(grads[i], expected[i], 1e-10, 1e-10)) << "input " << i;
}

// With a head size of 64 the scale is 1/8, a power of two: scaling q first changes no bit of
// the scores against scaling q k^T.
TEST(CausalSelfAttention, HeadSizeOf64GivesTheScoresScaledAfterTheProduct) {
#if RUNNER_TORCH_AT_LEAST(2, 0)
  GTEST_SKIP() << "LibTorch 2.x runs its own fused attention";
#endif
  torch::manual_seed(5);
  torch::Tensor q = torch::randn({1, 2, 9, 64}), k = torch::randn({1, 2, 9, 64}),
                v = torch::randn({1, 2, 9, 64});
  torch::Tensor scores = torch::matmul(q, k.transpose(-2, -1)) * 0.125;
  scores.masked_fill_(torch::ones({9, 9}, torch::kBool).triu(1), -INFINITY);
  torch::Tensor expected = torch::matmul(torch::softmax(scores, -1), v);
  EXPECT_TRUE(torch::equal(runner::compat::causal_self_attention(q, k, v, 0.0, false), expected));
}

TEST(CausalSelfAttention, FirstPositionReturnsItsOwnValue) {
  Qkv x = random_qkv();
  torch::Tensor out = runner::compat::causal_self_attention(x.q, x.k, x.v, 0.0, false);
  EXPECT_TRUE(torch::allclose(out.select(2, 0), x.v.select(2, 0), 1e-12, 1e-12));
}

TEST(CausalSelfAttention, DropoutAppliesOnlyWhileTraining) {
  Qkv x = random_qkv();
  torch::Tensor expected = reference_attention(x.q, x.k, x.v);
  torch::Tensor evaluated = runner::compat::causal_self_attention(x.q, x.k, x.v, 0.5, false);
  EXPECT_TRUE(torch::allclose(evaluated, expected, 1e-10, 1e-10));
  torch::Tensor trained = runner::compat::causal_self_attention(x.q, x.k, x.v, 0.5, true);
  EXPECT_FALSE(torch::allclose(trained, expected, 1e-3, 1e-3));
}

// bf16 attention, within bf16's rounding of the exact one, in bf16 out and back, with and
// without autocast.
TEST(CausalSelfAttention, Bf16InputsGiveBf16OutputsAndGradientsNearTheExactOnes) {
  Qkv x = random_qkv();
  std::vector<torch::Tensor> exact{x.q.requires_grad_(), x.k.requires_grad_(),
                                   x.v.requires_grad_()};
  std::vector<torch::Tensor> bf16;
  for (const auto& t : exact) bf16.push_back(t.detach().to(torch::kBFloat16).requires_grad_());
  torch::Tensor weights = torch::randn_like(x.q);
  auto expected_grads =
      torch::autograd::grad({(reference_attention(x.q, x.k, x.v) * weights).sum()}, exact);
  torch::Tensor expected = reference_attention(x.q, x.k, x.v).detach();
  for (bool autocast : {false, true}) {
    runner::compat::AutocastScope scope(torch::kCPU, {autocast, torch::kBFloat16});
    torch::Tensor out = runner::compat::causal_self_attention(bf16[0], bf16[1], bf16[2], 0.0, true);
    ASSERT_EQ(out.scalar_type(), torch::kBFloat16) << "autocast " << autocast;
    EXPECT_TRUE(torch::allclose(out.to(torch::kFloat64), expected, 2e-2, 2e-2));
    auto grads = torch::autograd::grad({(out.to(torch::kFloat64) * weights).sum()}, bf16);
    for (size_t i = 0; i < grads.size(); ++i) {
      ASSERT_EQ(grads[i].scalar_type(), torch::kBFloat16) << "input " << i;
      EXPECT_TRUE(torch::allclose(grads[i].to(torch::kFloat64), expected_grads[i], 5e-2, 5e-2))
          << "input " << i << ", autocast " << autocast;
    }
  }
}

// LibTorch 2.x's CPU kernel is several times slower in bf16 than in float: bf16 inputs are
// attended in float, autocast or not (autocast would cast them back to bf16 first).
TEST(CausalSelfAttention, Bf16InputsOnTheCpuAreAttendedInFloat) {
#if !RUNNER_TORCH_AT_LEAST(2, 0)
  GTEST_SKIP() << "LibTorch 1.13 attends through its matmuls, in the inputs' type";
#endif
  Qkv x = random_qkv();
  torch::Tensor q = x.q.to(torch::kBFloat16), k = x.k.to(torch::kBFloat16),
                v = x.v.to(torch::kBFloat16);
  torch::Tensor in_float = runner::compat::causal_self_attention(
      q.to(torch::kFloat), k.to(torch::kFloat), v.to(torch::kFloat), 0.0, false);
  for (bool autocast : {false, true}) {
    runner::compat::AutocastScope scope(torch::kCPU, {autocast, torch::kBFloat16});
    torch::Tensor out = runner::compat::causal_self_attention(q, k, v, 0.0, false);
    EXPECT_TRUE(torch::equal(out, in_float.to(torch::kBFloat16))) << "autocast " << autocast;
  }
}

}  // namespace
