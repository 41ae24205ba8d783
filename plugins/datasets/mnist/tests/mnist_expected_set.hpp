// What loading the small set of mnist_test_files.hpp must give, from the pixel and label
// formulas there.
#pragma once

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "mnist_test_files.hpp"

namespace mnist::testing {

// (N, 1, 28, 28): pixel bytes of images first..first+count, as float.
inline torch::Tensor expected_bytes(int first, int count) {
  torch::Tensor out = torch::empty({count, 1, kSide, kSide});
  auto a = out.accessor<float, 4>();
  for (int i = 0; i < count; ++i)
    for (int r = 0; r < kSide; ++r)
      for (int c = 0; c < kSide; ++c) a[i][0][r][c] = pixel(first + i, r, c);
  return out;
}

inline torch::Tensor expected_labels(int first, int count) {
  std::vector<int64_t> labels;
  for (int i = first; i < first + count; ++i) labels.push_back(label(i));
  return torch::tensor(labels, torch::kInt64);
}

inline torch::Tensor all_indices(const runner::Dataset& data, runner::Split split) {
  return torch::arange(data.size(split), torch::kInt64);
}

// The whole set, loaded with normalize = false.
inline void expect_unnormalized_set(const MnistDataset& data) {
  using runner::Split;
  ASSERT_EQ(data.size(Split::train), kTrainImages);
  ASSERT_EQ(data.size(Split::test), kTestImages);
  runner::Batch train = data.get_batch(Split::train, all_indices(data, Split::train));
  runner::Batch test = data.get_batch(Split::test, all_indices(data, Split::test));
  EXPECT_EQ(train.inputs.sizes(), torch::IntArrayRef({kTrainImages, 1, kSide, kSide}));
  EXPECT_EQ(train.inputs.dtype(), torch::kFloat32);
  EXPECT_EQ(train.targets.dtype(), torch::kInt64);
  EXPECT_TRUE(torch::allclose(train.inputs, expected_bytes(0, kTrainImages) / 255));
  EXPECT_TRUE(torch::allclose(test.inputs, expected_bytes(kTrainImages, kTestImages) / 255));
  EXPECT_TRUE(torch::equal(train.targets, expected_labels(0, kTrainImages)));
  EXPECT_TRUE(torch::equal(test.targets, expected_labels(kTrainImages, kTestImages)));
}

}  // namespace mnist::testing
