// The sizes of one max_pool2d call as plain integers, shared by the CPU kernels, the CUDA
// kernels and the LibTorch side: x as planes (N C, H, W), the output (N C, Ho, Wo). No
// LibTorch header, so nvcc and every CPU capability can include it.
#pragma once

#include <cstdint>

namespace max_pool2d {

struct PoolShape {
  int64_t planes = 0;  // N C
  int64_t height = 0;  // H
  int64_t width = 0;   // W
  int64_t kernel_h = 2;
  int64_t kernel_w = 2;
  int64_t stride_h = 2;
  int64_t stride_w = 2;
  int64_t pad_h = 0;
  int64_t pad_w = 0;
  int64_t out_h = 0;  // (H + 2 pad_h - kernel_h) / stride_h + 1
  int64_t out_w = 0;
};

}  // namespace max_pool2d
