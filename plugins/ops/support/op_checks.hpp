// The checks the op plugins' calls share: attributes of {h, w} pairs, and one-line errors that
// name the op.
#pragma once

#include <torch/torch.h>
#include <runner/op.hpp>

#include <string>
#include <vector>

namespace op_support {

// "[64, 3, 28, 28]".
std::string shape_text(torch::IntArrayRef sizes);

// A RunError "<op>: <message>": a call the op cannot take.
[[noreturn]] void fail(const std::string& op, const std::string& message);

// A ConfigError naming the first attribute not in `known` (which is listed in the message).
void check_known_attributes(const std::string& op, const runner::OpAttributes& attributes,
                            const std::vector<std::string>& known);

// The two values {h, w} of attribute `name` (`fallback` when it is not given), each at least
// `minimum`; a ConfigError naming the op and the attribute otherwise.
std::vector<int64_t> pair_attribute(const std::string& op, const runner::OpAttributes& attributes,
                                    const std::string& name, std::vector<int64_t> fallback,
                                    int64_t minimum);

// Outputs along one side of a sliding window: (size + 2 * pad - kernel) / stride + 1.
int64_t window_outputs(int64_t size, int64_t kernel, int64_t stride, int64_t pad);

// A RunError when the `what` ("kernel", "window") of kernel_h x kernel_w does not fit the input
// padded by pad_h, pad_w on each side.
void check_window_fits(const std::string& op, const std::string& what, torch::IntArrayRef x_sizes,
                       int64_t height, int64_t width, int64_t kernel_h, int64_t kernel_w,
                       int64_t pad_h, int64_t pad_w);

}  // namespace op_support
