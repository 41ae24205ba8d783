// The op plugins' shared checks: attribute pairs and errors that name the op.
#include "op_checks.hpp"

#include <runner/errors.hpp>

#include <algorithm>
#include <sstream>

namespace op_support {

std::string shape_text(torch::IntArrayRef sizes) {
  std::ostringstream out;
  out << sizes;
  return out.str();
}

void fail(const std::string& op, const std::string& message) {
  throw runner::RunError(op + ": " + message);
}

void check_known_attributes(const std::string& op, const runner::OpAttributes& attributes,
                            const std::vector<std::string>& known) {
  for (const auto& [name, values] : attributes.values()) {
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
    throw runner::ConfigError(op + ": unknown attribute \"" + name + "\" (known: " + list + ")");
  }
}

std::vector<int64_t> pair_attribute(const std::string& op, const runner::OpAttributes& attributes,
                                    const std::string& name, std::vector<int64_t> fallback,
                                    int64_t minimum) {
  std::vector<int64_t> values = attributes.get(name, std::move(fallback));
  const std::string prefix = op + ": attribute \"" + name + "\" ";
  if (values.size() != 2)
    throw runner::ConfigError(prefix + "needs 2 values {h, w}, got " +
                              std::to_string(values.size()));
  for (int64_t v : values)
    if (v < minimum)
      throw runner::ConfigError(prefix + "must be at least " + std::to_string(minimum) + ", got " +
                                std::to_string(v));
  return values;
}

int64_t window_outputs(int64_t size, int64_t kernel, int64_t stride, int64_t pad) {
  return (size + 2 * pad - kernel) / stride + 1;
}

void check_window_fits(const std::string& op, const std::string& what, torch::IntArrayRef x_sizes,
                       int64_t height, int64_t width, int64_t kernel_h, int64_t kernel_w,
                       int64_t pad_h, int64_t pad_w) {
  const int64_t padded_h = height + 2 * pad_h, padded_w = width + 2 * pad_w;
  if (kernel_h <= padded_h && kernel_w <= padded_w) return;
  fail(op, "the " + std::to_string(kernel_h) + "x" + std::to_string(kernel_w) + " " + what +
               " is larger than the padded input " + std::to_string(padded_h) + "x" +
               std::to_string(padded_w) + " (x " + shape_text(x_sizes) + ", padding " +
               std::to_string(pad_h) + "," + std::to_string(pad_w) + ")");
}

}  // namespace op_support
