// Tests of scatter and gather: chunk sizes and order, no empty chunk, gradients back to each chunk.
#include "scatter_gather.hpp"

#include <gtest/gtest.h>

namespace runner::strategies::dp_tests {
namespace {

std::vector<int64_t> sizes_of(const std::vector<torch::Tensor>& chunks) {
  std::vector<int64_t> sizes;
  for (const auto& c : chunks) sizes.push_back(c.size(0));
  return sizes;
}

TEST(Scatter, ChunksDifferByAtMostOneSampleAndKeepTheOrder) {
  torch::Tensor batch = torch::arange(14).reshape({7, 2});  // (7, 2)
  auto chunks = scatter(batch, 3);
  EXPECT_EQ(sizes_of(chunks), (std::vector<int64_t>{3, 2, 2}));
  EXPECT_TRUE(torch::equal(torch::cat(chunks, 0), batch));
}

TEST(Scatter, NoDeviceGetsAnEmptyChunk) {
  EXPECT_EQ(sizes_of(scatter(torch::zeros({2, 5}), 4)), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(sizes_of(scatter(torch::zeros({1, 5}), 2)), (std::vector<int64_t>{1}));
}

TEST(Gather, JoinsInOrderAndSendsEachChunkItsGradient) {
  auto a = torch::tensor({1.0, 2.0}, torch::requires_grad());
  auto b = torch::tensor({3.0}, torch::requires_grad());
  torch::Tensor joined = gather({a, b}, torch::kCPU);  // (3)
  EXPECT_TRUE(torch::equal(joined, torch::tensor({1.0, 2.0, 3.0})));
  // d/dx of sum(w * joined) is w, cut back into the chunks' shares.
  (joined * torch::tensor({10.0, 20.0, 30.0})).sum().backward();
  EXPECT_TRUE(torch::equal(a.grad(), torch::tensor({10.0, 20.0})));
  EXPECT_TRUE(torch::equal(b.grad(), torch::tensor({30.0})));
}

}  // namespace
}  // namespace runner::strategies::dp_tests
