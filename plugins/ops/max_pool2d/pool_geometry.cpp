// Parsing max_pool2d's attributes and checking its input, with the output shape they give.
#include "pool_geometry.hpp"

#include <limits>
#include <runner/errors.hpp>
#include <string>

#include "op_checks.hpp"

namespace max_pool2d {
namespace {

const char* const kOp = "max_pool2d";

void fail(const std::string& message) { op_support::fail(kOp, message); }

// PyTorch's rule: a window never lies wholly in the padding.
void check_padding(int64_t padding, int64_t kernel) {
  if (2 * padding > kernel)
    throw runner::ConfigError(std::string(kOp) + ": attribute \"padding\" " +
                              std::to_string(padding) + " is more than half the kernel size " +
                              std::to_string(kernel));
}

}  // namespace

PoolAttributes parse_attributes(const runner::OpAttributes& attributes) {
  op_support::check_known_attributes(kOp, attributes, {"kernel_size", "padding", "stride"});
  const auto kernel = op_support::pair_attribute(kOp, attributes, "kernel_size", {2, 2}, 1);
  const auto stride = op_support::pair_attribute(kOp, attributes, "stride", kernel, 1);
  const auto padding = op_support::pair_attribute(kOp, attributes, "padding", {0, 0}, 0);
  check_padding(padding[0], kernel[0]);
  check_padding(padding[1], kernel[1]);
  return {kernel[0], kernel[1], stride[0], stride[1], padding[0], padding[1]};
}

PoolShape pool_shape(torch::IntArrayRef sizes, const PoolAttributes& a) {
  const int64_t d = static_cast<int64_t>(sizes.size());
  PoolShape s;
  s.planes = d == 4 ? sizes[0] * sizes[1] : sizes[0];
  s.height = sizes[d - 2];
  s.width = sizes[d - 1];
  s.kernel_h = a.kernel_h;
  s.kernel_w = a.kernel_w;
  s.stride_h = a.stride_h;
  s.stride_w = a.stride_w;
  s.pad_h = a.pad_h;
  s.pad_w = a.pad_w;
  s.out_h = op_support::window_outputs(s.height, s.kernel_h, s.stride_h, s.pad_h);
  s.out_w = op_support::window_outputs(s.width, s.kernel_w, s.stride_w, s.pad_w);
  return s;
}

PoolShape check_input(const torch::Tensor& x, const PoolAttributes& attributes) {
  if (!x.defined()) fail("x is missing (an undefined tensor)");
  if (x.dim() != 3 && x.dim() != 4)
    fail("x must be (N, C, H, W) or (C, H, W), got shape " + op_support::shape_text(x.sizes()));
  if (x.scalar_type() != torch::kFloat && x.scalar_type() != torch::kDouble)
    fail(std::string("supports float32 and float64 tensors, x is ") +
         c10::toString(x.scalar_type()));
  const PoolShape s = pool_shape(x.sizes(), attributes);
  op_support::check_window_fits(kOp, "window", x.sizes(), s.height, s.width, s.kernel_h, s.kernel_w,
                                s.pad_h, s.pad_w);
  if (s.height * s.width > std::numeric_limits<int32_t>::max())
    fail("a plane of " + std::to_string(s.height) + "x" + std::to_string(s.width) +
         " is too large for the op's 32-bit indices");
  return s;
}

}  // namespace max_pool2d
