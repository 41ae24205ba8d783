// The inputs check-op tries: the op's cases for each shape, each also with a non-contiguous
// first input, and labels that say what a case is.
#pragma once

#include <optional>

#include "opcheck/check_op.hpp"

namespace runner::opcheck {

struct LabelledCase {
  std::string label;
  OpCase c;
};

// Every case of `op` for `shapes` in the dtype and device of `settings`.
std::vector<LabelledCase> op_cases(const Op& op, const std::vector<std::vector<int64_t>>& shapes,
                                   const CheckSettings& settings);

// The case with its first input as a strided view (every other element of a larger tensor)
// holding the same values; none when no such view is non-contiguous (a single element).
std::optional<LabelledCase> non_contiguous(const LabelledCase& c);

// "(2, 3, 8, 8)"
std::string shape_text(const torch::Tensor& t);

// Number of elements over all defined inputs.
int64_t input_elements(const OpCase& c);

}  // namespace runner::opcheck
