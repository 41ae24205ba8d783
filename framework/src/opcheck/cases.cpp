// The op's cases per shape, their labels, and the non-contiguous copy of a case's first input.
#include "opcheck/cases.hpp"

namespace runner::opcheck {
namespace {

std::string case_label(const OpCase& c) {
  std::string label;
  for (size_t i = 0; i < c.inputs.size(); ++i) label += (i ? " " : "") + shape_text(c.inputs[i]);
  if (!c.attributes.values().empty()) label += " " + c.attributes.text();
  return label;
}

}  // namespace

std::string shape_text(const torch::Tensor& t) {
  if (!t.defined()) return "none";
  std::string text = "(";
  for (int64_t i = 0; i < t.dim(); ++i) text += (i ? ", " : "") + std::to_string(t.size(i));
  return text + ")";
}

int64_t input_elements(const OpCase& c) {
  int64_t elements = 0;
  for (const auto& t : c.inputs)
    if (t.defined()) elements += t.numel();
  return elements;
}

std::vector<LabelledCase> op_cases(const Op& op, const std::vector<std::vector<int64_t>>& shapes,
                                   const CheckSettings& settings) {
  const auto options = torch::TensorOptions().dtype(settings.dtype).device(settings.device);
  std::vector<LabelledCase> cases;
  for (const auto& shape : shapes)
    for (auto& c : op.check_cases(shape, options)) cases.push_back({case_label(c), std::move(c)});
  return cases;
}

std::optional<LabelledCase> non_contiguous(const LabelledCase& c) {
  const torch::Tensor& x = c.c.inputs.at(0);
  if (!x.defined() || x.dim() == 0 || x.numel() == 0) return std::nullopt;
  std::vector<int64_t> wider = x.sizes().vec();
  wider.back() *= 2;
  torch::Tensor strided = torch::empty(wider, x.options()).slice(-1, 0, wider.back(), 2);
  // A tensor of one element, or whose last side is 1 elsewhere, is contiguous whatever its strides.
  if (strided.is_contiguous()) return std::nullopt;
  strided.copy_(x);
  LabelledCase copy = c;
  copy.c.inputs[0] = strided;
  copy.label += " non-contiguous";
  return copy;
}

}  // namespace runner::opcheck
