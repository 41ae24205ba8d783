// The checks of a max_pool2d call: its attributes (kernel_size, stride, padding) and its
// input (rank, dtype, window against the padded input). Each problem a caller can cause is
// one line that names the op and the bad value.
#pragma once

#include <runner/op.hpp>

#include "pool_shape.hpp"

namespace max_pool2d {

struct PoolAttributes {
  int64_t kernel_h = 2, kernel_w = 2;
  int64_t stride_h = 2, stride_w = 2;
  int64_t pad_h = 0, pad_w = 0;
};

// "kernel_size" {kh, kw} (>= 1, default {2, 2}), "stride" {sh, sw} (>= 1, default the kernel
// size), "padding" {ph, pw} (>= 0 and at most half the kernel, default {0, 0}); any other
// name, another length or a value out of range is a ConfigError.
PoolAttributes parse_attributes(const runner::OpAttributes& attributes);

// The sizes of a call on x (N, C, H, W) or (C, H, W); a RunError for an input that does not
// fit the attributes.
PoolShape check_input(const torch::Tensor& x, const PoolAttributes& attributes);

// The sizes again, from an input of `sizes` that passed check_input().
PoolShape pool_shape(torch::IntArrayRef sizes, const PoolAttributes& attributes);

}  // namespace max_pool2d
