// The CPU side of max_pool2d: picks the kernel copy for the processor's capability and hands
// it contiguous tensors.
#include <runner/cpu_capability.hpp>

#include "pool_backends.hpp"
#include "pool_cpu_kernels.hpp"

namespace max_pool2d {
namespace {

template <typename T>
const cpu::PoolKernels<T>& kernels() {
  switch (runner::cpu_capability()) {
#if defined(__x86_64__) || defined(_M_X64)
    case runner::CpuCapability::AVX512: return cpu::AVX512::pool_kernels<T>();
    case runner::CpuCapability::AVX2: return cpu::AVX2::pool_kernels<T>();
#endif
    default: return cpu::DEFAULT::pool_kernels<T>();
  }
}

}  // namespace

PoolResult max_pool_forward_cpu(const torch::Tensor& x, const PoolShape& shape) {
  const torch::Tensor xc = x.contiguous();
  const std::vector<int64_t> sizes = output_sizes(x.sizes(), shape);
  PoolResult result{torch::empty(sizes, x.options()),
                    torch::empty(sizes, x.options().dtype(torch::kInt))};
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "max_pool2d_forward_cpu", [&] {
    kernels<scalar_t>().forward(shape, xc.data_ptr<scalar_t>(), result.output.data_ptr<scalar_t>(),
                                result.indices.data_ptr<int32_t>());
  });
  return result;
}

torch::Tensor max_pool_backward_cpu(const torch::Tensor& grad_y, const torch::Tensor& indices,
                                    torch::IntArrayRef input_sizes, const PoolShape& shape) {
  const torch::Tensor gc = grad_y.contiguous(), ic = indices.contiguous();
  torch::Tensor grad_x = torch::empty(input_sizes, grad_y.options());
  AT_DISPATCH_FLOATING_TYPES(grad_y.scalar_type(), "max_pool2d_backward_cpu", [&] {
    kernels<scalar_t>().backward(shape, gc.data_ptr<scalar_t>(), ic.data_ptr<int32_t>(),
                                 grad_x.data_ptr<scalar_t>());
  });
  return grad_x;
}

}  // namespace max_pool2d
