// The CPU side of fused_conv_relu: picks the kernel copy for the processor's capability,
// packs the weight, gives each thread's range of samples its own scratch, and sums the
// threads' partial weight and bias gradients in a fixed order, so results do not depend on
// which thread finished first.
#include <ATen/Parallel.h>
#include <runner/cpu_capability.hpp>

#include <algorithm>

#include "conv_backends.hpp"
#include "conv_cpu_kernels.hpp"
#include "tensor_data.hpp"

namespace fused_conv_relu {
namespace {

// The reference, conv2d, runs in oneDNN, which takes the widest vectors the processor has
// whatever ATen's own default (AVX2 in LibTorch 1.x): so does this op.
runner::CpuCapability capability() { return runner::widest_cpu_capability(); }

template <typename T>
const cpu::ConvKernels<T>& kernels() {
  switch (capability()) {
#if defined(__x86_64__) || defined(_M_X64)
    case runner::CpuCapability::AVX512: return cpu::AVX512::conv_kernels<T>();
    case runner::CpuCapability::AVX2: return cpu::AVX2::conv_kernels<T>();
#endif
    default: return cpu::DEFAULT::conv_kernels<T>();
  }
}

// Ranges of samples: at most one per thread.
int64_t parts_for(int64_t batch) { return std::min<int64_t>(batch, at::get_num_threads()); }

int64_t patch_size(const ConvShape& s) { return s.channels * s.kernel_h * s.kernel_w; }

// The weight (O, C kh kw) in the tile kernel's layout.
template <typename T>
torch::Tensor packed_weight(const cpu::ConvKernels<T>& k, const torch::Tensor& weight, int64_t rows,
                            int64_t depth) {
  torch::Tensor packed = torch::empty({k.packed_size(rows, depth)}, weight.options());
  k.pack(weight.data_ptr<T>(), rows, depth, packed.data_ptr<T>());
  return packed;
}

template <typename T>
void run_forward(const ConvShape& s, const torch::Tensor& x, const torch::Tensor& weight,
                 const torch::Tensor& bias, torch::Tensor& y) {
  const cpu::ConvKernels<T>& k = kernels<T>();
  const torch::Tensor packed = packed_weight(k, weight, s.out_channels, patch_size(s));
  const int64_t parts = parts_for(s.batch);
  torch::Tensor scratch = torch::empty({parts, k.forward_scratch(s)}, x.options());
  k.forward(s, x.data_ptr<T>(), packed.data_ptr<T>(), bias.defined() ? bias.data_ptr<T>() : nullptr,
            y.data_ptr<T>(), parts, scratch.data_ptr<T>());
}

// One row of partial sums per thread's range, summed in order at the end.
struct Partials {
  torch::Tensor weight, bias;
};

template <typename T>
void run_backward(const ConvShape& s, const torch::Tensor& x, const torch::Tensor& weight,
                  const torch::Tensor& y, const torch::Tensor& grad_y, ConvGradients& grads,
                  Partials& partials) {
  const cpu::ConvKernels<T>& k = kernels<T>();
  torch::Tensor packed;
  if (grads.x.defined()) {
    // grad_x convolves with the weight flipped in kh and kw, as (C, O kh kw).
    const torch::Tensor flipped = weight.flip({2, 3}).transpose(0, 1).contiguous();
    packed = packed_weight(k, flipped, s.channels, s.out_channels * s.kernel_h * s.kernel_w);
  }
  const int64_t parts = parts_for(s.batch);
  torch::Tensor scratch = torch::empty({parts, k.backward_scratch(s)}, x.options());
  k.backward(s, x.data_ptr<T>(), y.data_ptr<T>(), grad_y.data_ptr<T>(), data_or_null<T>(packed),
             data_or_null<T>(grads.x), data_or_null<T>(partials.weight),
             data_or_null<T>(partials.bias), parts, scratch.data_ptr<T>());
}

}  // namespace

torch::Tensor conv_relu_forward_cpu(const torch::Tensor& x, const torch::Tensor& weight,
                                    const torch::Tensor& bias, const ConvShape& shape) {
  const torch::Tensor xc = x.contiguous(), wc = weight.contiguous();
  const torch::Tensor bc = bias.defined() ? bias.contiguous() : bias;
  torch::Tensor y =
      torch::empty({shape.batch, shape.out_channels, shape.out_h, shape.out_w}, x.options());
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "fused_conv_relu_forward_cpu",
                             [&] { run_forward<scalar_t>(shape, xc, wc, bc, y); });
  return y;
}

ConvGradients conv_relu_backward_cpu(const torch::Tensor& x, const torch::Tensor& weight,
                                     const torch::Tensor& y, const torch::Tensor& grad_y,
                                     const ConvShape& shape, const NeededGradients& needed) {
  const torch::Tensor xc = x.contiguous(), wc = weight.contiguous(), yc = y.contiguous();
  const torch::Tensor gc = grad_y.contiguous();
  const int64_t parts = parts_for(shape.batch);
  ConvGradients grads;
  Partials partials;
  if (needed.x) grads.x = torch::empty_like(xc);
  if (needed.weight)
    partials.weight = torch::zeros({parts, shape.out_channels * patch_size(shape)}, x.options());
  if (needed.bias) partials.bias = torch::zeros({parts, shape.out_channels}, x.options());
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "fused_conv_relu_backward_cpu", [&] {
    run_backward<scalar_t>(shape, xc, wc, yc, gc, grads, partials);
  });
  if (needed.weight) grads.weight = partials.weight.sum(0).view(weight.sizes());
  if (needed.bias) grads.bias = partials.bias.sum(0);
  return grads;
}

}  // namespace fused_conv_relu
