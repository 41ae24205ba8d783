// gelu on CPU tensors: flat contiguous arrays handed to the kernel copy runner::cpu_capability()
// picks (the widest the processor supports, lowered by ATEN_CPU_CAPABILITY).
#include "gelu_cpu.hpp"

#include <runner/cpu_capability.hpp>

#include "gelu_cpu_kernels.hpp"

namespace gelu {
namespace {

CpuKernels kernels_for_this_cpu(Approximation form) {
  switch (runner::cpu_capability()) {
#if defined(__x86_64__)
    case runner::CpuCapability::AVX512: return AVX512::cpu_kernels(form);
    case runner::CpuCapability::AVX2: return AVX2::cpu_kernels(form);
#endif
    default: return DEFAULT::cpu_kernels(form);
  }
}

}  // namespace

torch::Tensor gelu_forward_cpu(const torch::Tensor& x, Approximation form) {
  const torch::Tensor input = x.contiguous();  // the kernels walk one flat array
  torch::Tensor output = torch::empty(input.sizes(), input.options());
  const CpuKernels kernels = kernels_for_this_cpu(form);
  const int64_t n = input.numel();
  if (input.scalar_type() == torch::kDouble)
    kernels.f64.forward(input.data_ptr<double>(), output.data_ptr<double>(), n);
  else
    kernels.f32.forward(input.data_ptr<float>(), output.data_ptr<float>(), n);
  return output;
}

torch::Tensor gelu_backward_cpu(const torch::Tensor& x, const torch::Tensor& grad_output,
                                Approximation form) {
  const torch::Tensor input = x.contiguous();
  const torch::Tensor grad = grad_output.contiguous();
  // A strided grad_output (the expanded one of sum(), for one) was just copied: the kernel
  // writes over that copy, element by element, instead of touching one more new buffer.
  torch::Tensor grad_input =
      grad.is_same(grad_output) ? torch::empty(input.sizes(), input.options()) : grad;
  const CpuKernels kernels = kernels_for_this_cpu(form);
  const int64_t n = input.numel();
  if (input.scalar_type() == torch::kDouble)
    kernels.f64.backward(input.data_ptr<double>(), grad.data_ptr<double>(),
                         grad_input.data_ptr<double>(), n);
  else
    kernels.f32.backward(input.data_ptr<float>(), grad.data_ptr<float>(),
                         grad_input.data_ptr<float>(), n);
  return grad_input;
}

}  // namespace gelu
