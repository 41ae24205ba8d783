// fused_conv_relu in a build whose LibTorch has no CUDA: a tensor on a GPU is refused with
// the reason, the same functions as conv_cuda.cpp so the rest of the op links either way.
#include <runner/errors.hpp>

#include "conv_backends.hpp"

namespace fused_conv_relu {
namespace {

[[noreturn]] void refuse(const torch::Tensor& x) {
  throw runner::RunError(
      "fused_conv_relu: this runner was built without CUDA (CPU-only LibTorch); the tensor is "
      "on " +
          x.device().str(),
      "move the model to the CPU or build the runner against a CUDA LibTorch");
}

}  // namespace

torch::Tensor conv_relu_forward_cuda(const torch::Tensor& x, const torch::Tensor&,
                                     const torch::Tensor&, const ConvShape&) {
  refuse(x);
}

ConvGradients conv_relu_backward_cuda(const torch::Tensor& x, const torch::Tensor&,
                                      const torch::Tensor&, const torch::Tensor&, const ConvShape&,
                                      const NeededGradients&) {
  refuse(x);
}

}  // namespace fused_conv_relu
