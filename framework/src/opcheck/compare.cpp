// Comparing one case: outputs and input gradients of the op against its reference's.
#include "opcheck/compare.hpp"

#include <cmath>

#include "opcheck/cases.hpp"

namespace runner::opcheck {
namespace {

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

void compare_gradients(const std::vector<torch::Tensor>& op_inputs,
                       const std::vector<torch::Tensor>& reference_inputs, double tolerance,
                       CaseResult& result) {
  for (size_t i = 0; i < op_inputs.size(); ++i) {
    if (!is_differentiable(op_inputs[i])) continue;
    const std::string what = "grad of input " + std::to_string(i);
    const torch::Tensor& expected = reference_inputs[i].grad();
    const torch::Tensor& actual = op_inputs[i].grad();
    if (!actual.defined() && expected.defined()) {
      result.failure = "the op gives no gradient for input " + std::to_string(i);
      return;
    }
    if (!actual.defined()) continue;
    result.differences.push_back(difference(
        what, actual, expected.defined() ? expected : torch::zeros_like(actual), tolerance));
  }
}

torch::Tensor in_float64(const torch::Tensor& t) {
  return is_differentiable(t) && t.scalar_type() != torch::kDouble ? t.to(torch::kDouble) : t;
}

struct ReferenceRun {
  std::vector<torch::Tensor> inputs;
  torch::Tensor output;
};

// The reference on float64 copies of the floating-point inputs: the op is held to the precise
// answer rather than to the library's rounding or its slips (oneDNN 3.7, LibTorch 2.6's, gets
// conv2d's float32 gradient of x wrong on AMD Zen 4 with AVX-512, relatively off by up to 2).
// A reference that refuses float64 runs in the case's own dtype.
ReferenceRun run_reference(const Op& op, const OpCase& c) {
  std::vector<torch::Tensor> precise;
  for (const auto& t : c.inputs) precise.push_back(in_float64(t));
  try {
    ReferenceRun run{fresh_leaves(precise), {}};
    run.output = op.reference(run.inputs, c.attributes);
    return run;
  } catch (const std::exception&) {
    ReferenceRun run{fresh_leaves(c.inputs), {}};
    run.output = op.reference(run.inputs, c.attributes);
    return run;
  }
}

}  // namespace

bool is_differentiable(const torch::Tensor& t) { return t.defined() && t.is_floating_point(); }

std::vector<torch::Tensor> fresh_leaves(const std::vector<torch::Tensor>& inputs) {
  std::vector<torch::Tensor> leaves;
  for (const auto& t : inputs)
    leaves.push_back(is_differentiable(t) ? t.detach().requires_grad_(true) : t);
  return leaves;
}

Difference difference(const std::string& what, const torch::Tensor& actual,
                      const torch::Tensor& expected, double tolerance) {
  Difference d{what};
  if (expected.numel() == 0) return d;
  torch::Tensor a = actual.detach().to(torch::kDouble);
  torch::Tensor e = expected.detach().to(torch::kDouble);
  d.max_abs = (a - e).abs().max().item<double>();
  const double scale = e.abs().max().item<double>();
  d.max_rel = scale > 0 ? d.max_abs / scale : d.max_abs;
  d.within = std::isfinite(d.max_rel) && d.max_rel <= tolerance;
  return d;
}

CaseResult compare_case(const Op& op, const OpCase& c, const std::string& label) {
  CaseResult result{label, {}, {}};
  const double tolerance = op.tolerance(c.inputs.at(0).scalar_type());
  try {
    std::vector<torch::Tensor> op_inputs = fresh_leaves(c.inputs);
    torch::Tensor output = op.forward(op_inputs, c.attributes);
    ReferenceRun reference = run_reference(op, c);
    torch::Tensor& expected = reference.output;
    if (output.sizes() != expected.sizes()) {
      result.failure = "output " + shape_text(output) + ", reference " + shape_text(expected);
      return result;
    }
    result.differences.push_back(difference("output", output, expected, tolerance));
    if (!expected.requires_grad()) return result;
    torch::Tensor grad_output = torch::randn_like(expected);
    expected.backward(grad_output);
    if (output.requires_grad()) output.backward(grad_output.to(output.scalar_type()));
    compare_gradients(op_inputs, reference.inputs, tolerance, result);
  } catch (const std::exception& e) {
    result.failure = first_line(e.what());
  }
  return result;
}

}  // namespace runner::opcheck
