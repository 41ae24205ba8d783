// Parsing max_pool2d's attributes and checking its input, with the output shape they give.
#include "pool_geometry.hpp"

#include <runner/errors.hpp>

#include <limits>
#include <sstream>
#include <string>

namespace max_pool2d {
namespace {

const char* const kOp = "max_pool2d";

std::string shape_text(torch::IntArrayRef sizes) {
  std::ostringstream out;
  out << sizes;
  return out.str();
}

void fail(const std::string& message) { throw runner::RunError(std::string(kOp) + ": " + message); }

std::string attribute_prefix(const std::string& name) {
  return std::string(kOp) + ": attribute \"" + name + "\" ";
}

// The two values of attribute `name`, each at least `minimum`.
std::vector<int64_t> pair_attribute(const runner::OpAttributes& attributes, const std::string& name,
                                    std::vector<int64_t> fallback, int64_t minimum) {
  std::vector<int64_t> values = attributes.get(name, std::move(fallback));
  if (values.size() != 2)
    throw runner::ConfigError(attribute_prefix(name) + "needs 2 values {h, w}, got " +
                              std::to_string(values.size()));
  for (int64_t v : values)
    if (v < minimum)
      throw runner::ConfigError(attribute_prefix(name) + "must be at least " +
                                std::to_string(minimum) + ", got " + std::to_string(v));
  return values;
}

// PyTorch's rule: a window never lies wholly in the padding.
void check_padding(int64_t padding, int64_t kernel) {
  if (2 * padding > kernel)
    throw runner::ConfigError(attribute_prefix("padding") + std::to_string(padding) +
                              " is more than half the kernel size " + std::to_string(kernel));
}

}  // namespace

PoolAttributes parse_attributes(const runner::OpAttributes& attributes) {
  for (const auto& [name, values] : attributes.values())
    if (name != "kernel_size" && name != "stride" && name != "padding")
      throw runner::ConfigError(std::string(kOp) + ": unknown attribute \"" + name +
                                "\" (known: kernel_size, padding, stride)");
  const std::vector<int64_t> kernel = pair_attribute(attributes, "kernel_size", {2, 2}, 1);
  const std::vector<int64_t> stride = pair_attribute(attributes, "stride", kernel, 1);
  const std::vector<int64_t> padding = pair_attribute(attributes, "padding", {0, 0}, 0);
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
  s.out_h = (s.height + 2 * s.pad_h - s.kernel_h) / s.stride_h + 1;
  s.out_w = (s.width + 2 * s.pad_w - s.kernel_w) / s.stride_w + 1;
  return s;
}

PoolShape check_input(const torch::Tensor& x, const PoolAttributes& attributes) {
  if (!x.defined()) fail("x is missing (an undefined tensor)");
  if (x.dim() != 3 && x.dim() != 4)
    fail("x must be (N, C, H, W) or (C, H, W), got shape " + shape_text(x.sizes()));
  if (x.scalar_type() != torch::kFloat && x.scalar_type() != torch::kDouble)
    fail(std::string("supports float32 and float64 tensors, x is ") +
         c10::toString(x.scalar_type()));
  const PoolShape s = pool_shape(x.sizes(), attributes);
  const int64_t padded_h = s.height + 2 * s.pad_h, padded_w = s.width + 2 * s.pad_w;
  if (s.kernel_h > padded_h || s.kernel_w > padded_w)
    fail("the " + std::to_string(s.kernel_h) + "x" + std::to_string(s.kernel_w) +
         " window is larger than the padded input " + std::to_string(padded_h) + "x" +
         std::to_string(padded_w) + " (x " + shape_text(x.sizes()) + ", padding " +
         std::to_string(s.pad_h) + "," + std::to_string(s.pad_w) + ")");
  if (s.height * s.width > std::numeric_limits<int32_t>::max())
    fail("a plane of " + std::to_string(s.height) + "x" + std::to_string(s.width) +
         " is too large for the op's 32-bit indices");
  return s;
}

}  // namespace max_pool2d
