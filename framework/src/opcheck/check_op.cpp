// check_op: every case compared, small cases gradchecked in float64, one timing per shape.
#include "opcheck/check_op.hpp"

#include "common/one_line.hpp"
#include "opcheck/cases.hpp"
#include "opcheck/compare.hpp"
#include "opcheck/timing.hpp"

namespace runner::opcheck {
namespace {

// Gradcheck costs two calls of the op per input element: only small cases are checked.
constexpr int64_t kGradcheckElements = 2048;

// Without a reference, a case only has to run forward and backward.
CaseResult run_case(const Op& op, const OpCase& c, const std::string& label) {
  CaseResult result{label, {}, {}};
  try {
    torch::Tensor output = op.forward(fresh_leaves(c.inputs), c.attributes);
    if (output.requires_grad()) output.backward(torch::ones_like(output));
  } catch (const std::exception& e) {
    result.failure = std::string(e.what()).substr(0, std::string(e.what()).find('\n'));
  }
  return result;
}

std::vector<CaseResult> compare_all(const Op& op, const std::vector<LabelledCase>& cases) {
  auto check = [&op](const LabelledCase& c) {
    return op.has_reference() ? compare_case(op, c.c, c.label) : run_case(op, c.c, c.label);
  };
  std::vector<CaseResult> results;
  for (const auto& c : cases) {
    results.push_back(check(c));
    if (auto strided = non_contiguous(c)) results.push_back(check(*strided));
  }
  return results;
}

std::vector<LabelledCase> small_cases(const std::vector<LabelledCase>& cases) {
  std::vector<LabelledCase> small;
  for (const auto& c : cases)
    if (input_elements(c.c) <= kGradcheckElements) small.push_back(c);
  return small;
}

// In float64, on the user's shapes where they are small, else on the op's own.
std::vector<GradcheckCase> gradcheck_all(const Op& op, const CheckSettings& settings) {
  CheckSettings in_double = settings;
  in_double.dtype = torch::kDouble;
  std::vector<LabelledCase> cases = small_cases(op_cases(op, settings.shapes, in_double));
  if (cases.empty()) cases = small_cases(op_cases(op, op.check_shapes(), in_double));
  std::vector<GradcheckCase> results;
  for (const auto& c : cases) {
    const OpAttributes& attributes = c.c.attributes;
    TensorFunction f = [&op, &attributes](const std::vector<torch::Tensor>& inputs) {
      return op.forward(inputs, attributes);
    };
    GradcheckCase result{c.label, {}};
    try {
      result.result = gradcheck(f, c.c.inputs);
    } catch (const std::exception& e) {
      result.result.passed = false;
      result.result.failure = std::string(e.what()).substr(0, std::string(e.what()).find('\n'));
    }
    results.push_back(result);
  }
  return results;
}

// A shape the op refuses fails its timing as it failed its case, and the report still prints.
Timing time_or_failure(const Op& op, const LabelledCase& c, const CheckSettings& settings) {
  try {
    return time_case(op, c.c, c.label, settings);
  } catch (const std::exception& e) {
    Timing failed{c.label};
    failed.failure = one_line(e);
    return failed;
  }
}

// One timing per shape, on the first case of that shape.
std::vector<Timing> time_all(const Op& op, const CheckSettings& settings) {
  std::vector<Timing> timings;
  for (const auto& shape : settings.shapes) {
    std::vector<LabelledCase> cases = op_cases(op, {shape}, settings);
    if (!cases.empty()) timings.push_back(time_or_failure(op, cases.front(), settings));
  }
  return timings;
}

}  // namespace

bool CaseResult::passed() const {
  if (!failure.empty()) return false;
  for (const auto& d : differences)
    if (!d.within) return false;
  return true;
}

bool CheckReport::passed() const {
  for (const auto& c : cases)
    if (!c.passed()) return false;
  for (const auto& g : gradchecks)
    if (!g.result.passed) return false;
  for (const auto& t : timings)
    if (!t.failure.empty()) return false;
  return true;
}

CheckReport check_op(const std::string& name, const Op& op, const CheckSettings& settings) {
  const ExactFloat32Scope exact_float32;  // references and timings in float32 proper
  torch::manual_seed(settings.seed);
  CheckSettings resolved = settings;
  if (resolved.shapes.empty()) resolved.shapes = op.check_shapes();
  CheckReport report;
  report.op = name;
  report.has_reference = op.has_reference();
  report.tolerance = op.tolerance(settings.dtype);
  report.cases = compare_all(op, op_cases(op, resolved.shapes, resolved));
  report.gradchecks = gradcheck_all(op, resolved);
  report.timings = time_all(op, resolved);
  return report;
}

}  // namespace runner::opcheck
