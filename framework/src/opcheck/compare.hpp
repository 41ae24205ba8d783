// One case of check-op: the op and its reference on copies of the same inputs, their outputs
// and the gradients of every differentiable input compared.
#pragma once

#include "opcheck/check_op.hpp"

namespace runner::opcheck {

// The largest absolute and relative difference of `actual` from `expected` (same shape).
Difference difference(const std::string& what, const torch::Tensor& actual,
                      const torch::Tensor& expected, double tolerance);

// Compares the op with its reference on `c`, with one random output gradient for both.
CaseResult compare_case(const Op& op, const OpCase& c, const std::string& label);

// Leaves for autograd: detached copies of `inputs`, differentiable ones requiring grad.
std::vector<torch::Tensor> fresh_leaves(const std::vector<torch::Tensor>& inputs);

bool is_differentiable(const torch::Tensor& t);

}  // namespace runner::opcheck
