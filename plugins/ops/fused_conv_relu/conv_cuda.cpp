// The CUDA side of fused_conv_relu: hands contiguous tensors to the kernels of
// conv_cuda_kernels.cu on LibTorch's current stream and checks each launch. Compiled only
// when LibTorch has CUDA (RUNNER_CUDA_ENABLED); conv_no_cuda.cpp stands in otherwise.
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>

#include "conv_backends.hpp"
#include "conv_cuda_kernels.hpp"
#include "tensor_data.hpp"

namespace fused_conv_relu {

torch::Tensor conv_relu_forward_cuda(const torch::Tensor& x, const torch::Tensor& weight,
                                     const torch::Tensor& bias, const ConvShape& shape) {
  const c10::cuda::CUDAGuard guard(x.device());
  const torch::Tensor xc = x.contiguous(), wc = weight.contiguous();
  const torch::Tensor bc = bias.defined() ? bias.contiguous() : bias;
  torch::Tensor y =
      torch::empty({shape.batch, shape.out_channels, shape.out_h, shape.out_w}, x.options());
  if (y.numel() == 0) return y;
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "fused_conv_relu_forward_cuda", [&] {
    cuda_kernels::conv_relu_forward(xc.data_ptr<scalar_t>(), wc.data_ptr<scalar_t>(),
                                    data_or_null<scalar_t>(bc), y.data_ptr<scalar_t>(), shape,
                                    stream);
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return y;
}

ConvGradients conv_relu_backward_cuda(const torch::Tensor& x, const torch::Tensor& weight,
                                      const torch::Tensor& y, const torch::Tensor& grad_y,
                                      const ConvShape& shape, const NeededGradients& needed) {
  const c10::cuda::CUDAGuard guard(x.device());
  const torch::Tensor xc = x.contiguous(), wc = weight.contiguous(), yc = y.contiguous();
  const torch::Tensor gc = grad_y.contiguous();
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  ConvGradients grads;
  if (needed.x) grads.x = torch::empty_like(xc);
  if (needed.weight) grads.weight = torch::empty_like(wc);
  if (needed.bias) grads.bias = torch::empty({shape.out_channels}, x.options());
  if (yc.numel() == 0) {
    for (torch::Tensor* t : {&grads.x, &grads.weight, &grads.bias})
      if (t->defined()) t->zero_();
    return grads;
  }
  torch::Tensor masked = torch::empty_like(yc);  // grad_y * (y > 0)
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "fused_conv_relu_backward_cuda", [&] {
    const scalar_t* g = masked.data_ptr<scalar_t>();
    cuda_kernels::relu_mask(gc.data_ptr<scalar_t>(), yc.data_ptr<scalar_t>(),
                            masked.data_ptr<scalar_t>(), yc.numel(), stream);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    if (needed.x)
      cuda_kernels::conv_input_grad(g, wc.data_ptr<scalar_t>(), grads.x.data_ptr<scalar_t>(), shape,
                                    stream);
    if (needed.weight)
      cuda_kernels::conv_weight_grad(g, xc.data_ptr<scalar_t>(), grads.weight.data_ptr<scalar_t>(),
                                     shape, stream);
    if (needed.bias)
      cuda_kernels::conv_bias_grad(g, grads.bias.data_ptr<scalar_t>(), shape, stream);
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return grads;
}

}  // namespace fused_conv_relu
