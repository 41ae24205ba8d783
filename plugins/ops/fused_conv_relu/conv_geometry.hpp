// The checks of a fused_conv_relu call: its attributes (stride, padding) and its tensors
// (ranks, channels, bias size, dtypes, devices, kernel against the padded input). Each
// problem a caller can cause is one line that names the op and the bad value.
#pragma once

#include <runner/op.hpp>

#include "conv_shape.hpp"

namespace fused_conv_relu {

struct ConvAttributes {
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_h = 0, pad_w = 0;
};

// "stride" {sh, sw} (each >= 1, default {1, 1}) and "padding" {ph, pw} (each >= 0, default
// {0, 0}); any other name, another length or a value out of range is a ConfigError.
ConvAttributes parse_attributes(const runner::OpAttributes& attributes);

// The sizes of a call on x (N, C, H, W), weight (O, C, kh, kw) and bias (O) or undefined;
// a RunError for tensors that do not fit together.
ConvShape check_inputs(const torch::Tensor& x, const torch::Tensor& weight,
                       const torch::Tensor& bias, const ConvAttributes& attributes);

// The sizes again, from tensors that passed check_inputs().
ConvShape conv_shape(const torch::Tensor& x, const torch::Tensor& weight,
                     const ConvAttributes& attributes);

}  // namespace fused_conv_relu
