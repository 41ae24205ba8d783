// A tensor's data for a kernel that takes an optional input as a null pointer (the bias).
#pragma once

#include <torch/types.h>

namespace fused_conv_relu {

template <typename T>
T* data_or_null(const torch::Tensor& t) {
  return t.defined() ? t.data_ptr<T>() : nullptr;
}

}  // namespace fused_conv_relu
