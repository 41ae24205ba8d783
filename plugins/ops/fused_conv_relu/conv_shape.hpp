// The sizes of one fused_conv_relu call as plain integers, shared by the CPU kernels, the
// CUDA kernels and the LibTorch side: x (N, C, H, W), weight (O, C, kh, kw), output
// (N, O, Ho, Wo). No LibTorch header, so nvcc and every CPU capability can include it.
#pragma once

#include <cstdint>

namespace fused_conv_relu {

struct ConvShape {
  int64_t batch = 0;         // N
  int64_t channels = 0;      // C
  int64_t height = 0;        // H
  int64_t width = 0;         // W
  int64_t out_channels = 0;  // O
  int64_t kernel_h = 0;
  int64_t kernel_w = 0;
  int64_t stride_h = 1;
  int64_t stride_w = 1;
  int64_t pad_h = 0;
  int64_t pad_w = 0;
  int64_t out_h = 0;  // (H + 2 pad_h - kernel_h) / stride_h + 1
  int64_t out_w = 0;
};

}  // namespace fused_conv_relu
