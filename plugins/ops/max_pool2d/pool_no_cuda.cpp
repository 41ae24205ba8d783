// max_pool2d in a build whose LibTorch has no CUDA: a tensor on a GPU is refused with the
// reason, the same functions as pool_cuda.cpp so the rest of the op links either way.
#include <runner/errors.hpp>

#include "pool_backends.hpp"

namespace max_pool2d {
namespace {

[[noreturn]] void refuse(const torch::Tensor& x) {
  throw runner::RunError(
      "max_pool2d: this runner was built without CUDA (CPU-only LibTorch); the tensor is on " +
          x.device().str(),
      "move the model to the CPU or build the runner against a CUDA LibTorch");
}

}  // namespace

PoolResult max_pool_forward_cuda(const torch::Tensor& x, const PoolShape&) { refuse(x); }

torch::Tensor max_pool_backward_cuda(const torch::Tensor& grad_y, const torch::Tensor&,
                                     torch::IntArrayRef, const PoolShape&) {
  refuse(grad_y);
}

}  // namespace max_pool2d
