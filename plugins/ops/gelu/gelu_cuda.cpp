// gelu on CUDA tensors: contiguous float32/float64 arrays handed to the kernels of
// gelu_kernels.cu on LibTorch's current stream of the tensor's device. Compiled only when
// LibTorch has CUDA (RUNNER_CUDA_ENABLED); written against the LibTorch 2.x API.
#include "gelu_cuda.hpp"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>

#include "gelu_kernels.hpp"

namespace gelu {

torch::Tensor gelu_forward_cuda(const torch::Tensor& x, Approximation form) {
  const c10::cuda::CUDAGuard device_guard(x.device());
  const torch::Tensor input = x.contiguous();  // the kernels walk one flat array
  torch::Tensor output = torch::empty(input.sizes(), input.options());
  const int64_t n = input.numel();
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  if (input.scalar_type() == torch::kDouble)
    C10_CUDA_CHECK(
        launch_gelu_forward(input.data_ptr<double>(), output.data_ptr<double>(), n, form, stream));
  else
    C10_CUDA_CHECK(
        launch_gelu_forward(input.data_ptr<float>(), output.data_ptr<float>(), n, form, stream));
  return output;
}

torch::Tensor gelu_backward_cuda(const torch::Tensor& x, const torch::Tensor& grad_output,
                                 Approximation form) {
  const c10::cuda::CUDAGuard device_guard(x.device());
  const torch::Tensor input = x.contiguous();
  const torch::Tensor grad = grad_output.contiguous();
  torch::Tensor grad_input = torch::empty(input.sizes(), input.options());
  const int64_t n = input.numel();
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  if (input.scalar_type() == torch::kDouble)
    C10_CUDA_CHECK(launch_gelu_backward(input.data_ptr<double>(), grad.data_ptr<double>(),
                                        grad_input.data_ptr<double>(), n, form, stream));
  else
    C10_CUDA_CHECK(launch_gelu_backward(input.data_ptr<float>(), grad.data_ptr<float>(),
                                        grad_input.data_ptr<float>(), n, form, stream));
  return grad_input;
}

}  // namespace gelu
