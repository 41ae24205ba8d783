// gelu's CUDA entry points in a build whose LibTorch has no CUDA. They keep the device
// dispatch of gelu_function.cpp the same in every build; should a CUDA tensor ever reach
// them, the error says why it cannot run.
#include <runner/errors.hpp>

#include "gelu_cuda.hpp"

namespace gelu {
namespace {

[[noreturn]] void refuse(const torch::Tensor& x) {
  throw runner::Error(runner::ErrorClass::runtime,
                      "gelu: this runner was built without CUDA (CPU-only LibTorch); the tensor "
                      "is on " +
                          x.device().str(),
                      "use train.device = \"cpu\", or build runner against a CUDA LibTorch");
}

}  // namespace

torch::Tensor gelu_forward_cuda(const torch::Tensor& x, Approximation /*form*/) { refuse(x); }

torch::Tensor gelu_backward_cuda(const torch::Tensor& x, const torch::Tensor& /*grad_output*/,
                                 Approximation /*form*/) {
  refuse(x);
}

}  // namespace gelu
