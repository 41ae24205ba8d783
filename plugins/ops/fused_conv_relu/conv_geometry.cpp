// Parsing fused_conv_relu's attributes and checking its tensors, with the output shape they give.
#include "conv_geometry.hpp"

#include <runner/errors.hpp>
#include <string>

#include "op_checks.hpp"

namespace fused_conv_relu {
namespace {

const char* const kOp = "fused_conv_relu";

std::string shape_text(const torch::Tensor& t) { return op_support::shape_text(t.sizes()); }

void fail(const std::string& message) { op_support::fail(kOp, message); }

void check_rank(const torch::Tensor& t, const char* name, const char* layout) {
  if (!t.defined()) fail(std::string(name) + " is missing (an undefined tensor)");
  if (t.dim() != 4)
    fail(std::string(name) + " must be 4-D " + layout + ", got shape " + shape_text(t));
}

void check_dtype_and_device(const torch::Tensor& x, const torch::Tensor& t, const char* name) {
  if (t.scalar_type() != x.scalar_type())
    fail(std::string(name) + " is " + c10::toString(t.scalar_type()) + " but x is " +
         c10::toString(x.scalar_type()));
  if (t.device() != x.device())
    fail(std::string(name) + " is on " + t.device().str() + " but x is on " + x.device().str());
}

void check_tensors(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias) {
  check_rank(x, "x", "(N, C, H, W)");
  check_rank(weight, "weight", "(O, C, kh, kw)");
  if (x.scalar_type() != torch::kFloat && x.scalar_type() != torch::kDouble)
    fail(std::string("supports float32 and float64 tensors, x is ") +
         c10::toString(x.scalar_type()));
  check_dtype_and_device(x, weight, "weight");
  if (weight.numel() == 0) fail("weight is empty, shape " + shape_text(weight));
  if (x.size(1) != weight.size(1))
    fail("x has " + std::to_string(x.size(1)) + " channels but weight " + shape_text(weight) +
         " expects " + std::to_string(weight.size(1)));
  if (!bias.defined()) return;
  check_dtype_and_device(x, bias, "bias");
  if (bias.dim() != 1 || bias.size(0) != weight.size(0))
    fail("bias must have shape [" + std::to_string(weight.size(0)) +
         "] (one per output channel), got " + shape_text(bias));
}

}  // namespace

ConvAttributes parse_attributes(const runner::OpAttributes& attributes) {
  op_support::check_known_attributes(kOp, attributes, {"padding", "stride"});
  const auto stride = op_support::pair_attribute(kOp, attributes, "stride", {1, 1}, 1);
  const auto padding = op_support::pair_attribute(kOp, attributes, "padding", {0, 0}, 0);
  return {stride[0], stride[1], padding[0], padding[1]};
}

ConvShape conv_shape(const torch::Tensor& x, const torch::Tensor& weight, const ConvAttributes& a) {
  ConvShape s;
  s.batch = x.size(0);
  s.channels = x.size(1);
  s.height = x.size(2);
  s.width = x.size(3);
  s.out_channels = weight.size(0);
  s.kernel_h = weight.size(2);
  s.kernel_w = weight.size(3);
  s.stride_h = a.stride_h;
  s.stride_w = a.stride_w;
  s.pad_h = a.pad_h;
  s.pad_w = a.pad_w;
  s.out_h = op_support::window_outputs(s.height, s.kernel_h, s.stride_h, s.pad_h);
  s.out_w = op_support::window_outputs(s.width, s.kernel_w, s.stride_w, s.pad_w);
  return s;
}

ConvShape check_inputs(const torch::Tensor& x, const torch::Tensor& weight,
                       const torch::Tensor& bias, const ConvAttributes& attributes) {
  check_tensors(x, weight, bias);
  const ConvShape s = conv_shape(x, weight, attributes);
  op_support::check_window_fits(kOp, "kernel", x.sizes(), s.height, s.width, s.kernel_h, s.kernel_w,
                                s.pad_h, s.pad_w);
  return s;
}

}  // namespace fused_conv_relu
