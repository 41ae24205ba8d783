// The CUDA side of max_pool2d: hands contiguous tensors to the kernels of pool_cuda_kernels.cu
// on LibTorch's current stream and checks each launch. Compiled only when LibTorch has CUDA
// (RUNNER_CUDA_ENABLED); pool_no_cuda.cpp stands in otherwise.
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>

#include "pool_backends.hpp"
#include "pool_cuda_kernels.hpp"

namespace max_pool2d {

PoolResult max_pool_forward_cuda(const torch::Tensor& x, const PoolShape& shape) {
  const c10::cuda::CUDAGuard guard(x.device());
  const torch::Tensor xc = x.contiguous();
  const std::vector<int64_t> sizes = output_sizes(x.sizes(), shape);
  PoolResult result{torch::empty(sizes, x.options()),
                    torch::empty(sizes, x.options().dtype(torch::kInt))};
  if (result.output.numel() == 0) return result;
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "max_pool2d_forward_cuda", [&] {
    cuda_kernels::max_pool_forward(xc.data_ptr<scalar_t>(), result.output.data_ptr<scalar_t>(),
                                   result.indices.data_ptr<int32_t>(), shape, stream);
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return result;
}

torch::Tensor max_pool_backward_cuda(const torch::Tensor& grad_y, const torch::Tensor& indices,
                                     torch::IntArrayRef input_sizes, const PoolShape& shape) {
  const c10::cuda::CUDAGuard guard(grad_y.device());
  const torch::Tensor gc = grad_y.contiguous(), ic = indices.contiguous();
  torch::Tensor grad_x = torch::empty(input_sizes, grad_y.options());
  if (grad_x.numel() == 0) return grad_x;
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES(grad_y.scalar_type(), "max_pool2d_backward_cuda", [&] {
    cuda_kernels::max_pool_backward(gc.data_ptr<scalar_t>(), ic.data_ptr<int32_t>(),
                                    grad_x.data_ptr<scalar_t>(), shape, stream);
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return grad_x;
}

}  // namespace max_pool2d
