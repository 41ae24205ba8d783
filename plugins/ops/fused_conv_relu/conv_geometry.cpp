// Parsing fused_conv_relu's attributes and checking its tensors, with the output shape they give.
#include "conv_geometry.hpp"

#include <runner/errors.hpp>

#include <sstream>
#include <string>

namespace fused_conv_relu {
namespace {

const char* const kOp = "fused_conv_relu";

std::string shape_text(const torch::Tensor& t) {
  std::ostringstream out;
  out << t.sizes();
  return out.str();
}

void fail(const std::string& message) { throw runner::RunError(std::string(kOp) + ": " + message); }

// The two values of attribute `name`, each at least `minimum`.
std::vector<int64_t> pair_attribute(const runner::OpAttributes& attributes, const std::string& name,
                                    int64_t fallback, int64_t minimum) {
  std::vector<int64_t> values = attributes.get(name, {fallback, fallback});
  const std::string prefix = std::string(kOp) + ": attribute \"" + name + "\" ";
  if (values.size() != 2)
    throw runner::ConfigError(prefix + "needs 2 values {h, w}, got " +
                              std::to_string(values.size()));
  for (int64_t v : values)
    if (v < minimum)
      throw runner::ConfigError(prefix + "must be at least " + std::to_string(minimum) + ", got " +
                                std::to_string(v));
  return values;
}

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
  for (const auto& [name, values] : attributes.values())
    if (name != "stride" && name != "padding")
      throw runner::ConfigError(std::string(kOp) + ": unknown attribute \"" + name +
                                "\" (known: padding, stride)");
  const std::vector<int64_t> stride = pair_attribute(attributes, "stride", 1, 1);
  const std::vector<int64_t> padding = pair_attribute(attributes, "padding", 0, 0);
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
  s.out_h = (s.height + 2 * s.pad_h - s.kernel_h) / s.stride_h + 1;
  s.out_w = (s.width + 2 * s.pad_w - s.kernel_w) / s.stride_w + 1;
  return s;
}

ConvShape check_inputs(const torch::Tensor& x, const torch::Tensor& weight,
                       const torch::Tensor& bias, const ConvAttributes& attributes) {
  check_tensors(x, weight, bias);
  const ConvShape s = conv_shape(x, weight, attributes);
  const int64_t padded_h = s.height + 2 * s.pad_h, padded_w = s.width + 2 * s.pad_w;
  if (s.kernel_h > padded_h || s.kernel_w > padded_w)
    fail("the " + std::to_string(s.kernel_h) + "x" + std::to_string(s.kernel_w) +
         " kernel is larger than the padded input " + std::to_string(padded_h) + "x" +
         std::to_string(padded_w) + " (x " + shape_text(x) + ", padding " +
         std::to_string(s.pad_h) + "," + std::to_string(s.pad_w) + ")");
  return s;
}

}  // namespace fused_conv_relu
