// runner::compat::causal_self_attention against attention written out one query at a time.
#include <gtest/gtest.h>
#include <runner/compat.hpp>

#include <cmath>

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
