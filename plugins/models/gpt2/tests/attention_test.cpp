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

}  // namespace
