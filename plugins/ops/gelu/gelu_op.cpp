// The gelu op: its key, its reference, the shapes check-op tries, and its registration.
#include "gelu_op.hpp"

#include <runner/errors.hpp>

#include <memory>

#include "gelu_function.hpp"

namespace gelu {
namespace {

const char* const kVersion = "1.0.0";
const char* const kKey = "approximate";
const std::vector<std::string> kForms = {"none", "tanh", "sigmoid"};

constexpr double kSigmoidScale = 1.702;  // x * sigmoid(1.702 x)

// A (4, 32769) input: 131076 elements, more than the kernels' grain of 32768, so check-op
// also runs the path split among threads, and on an odd length.
const std::vector<int64_t> kThreadedShape = {4, 32769};

}  // namespace

Approximation approximation_from(const std::string& approximate) {
  if (approximate == "none") return Approximation::none;
  if (approximate == "tanh") return Approximation::tanh;
  if (approximate == "sigmoid") return Approximation::sigmoid;
  throw runner::ConfigError(
      "ops.gelu.approximate = \"" + approximate + "\" is not one of none, tanh, sigmoid",
      "choices: none, tanh, sigmoid");
}

runner::Schema gelu_schema() {
  runner::Schema schema;
  schema.text(kKey, std::string("none"),
              "none: x * Phi(x) with erf; tanh: the tanh approximation (GPT-2); "
              "sigmoid: x * sigmoid(1.702 x)",
              kForms);
  return schema;
}

torch::Tensor GeluOp::forward(const std::vector<torch::Tensor>& inputs,
                              const runner::OpAttributes& /*attributes*/) const {
  RUNNER_CHECK(inputs.size() == 1, "gelu takes one tensor, got " + std::to_string(inputs.size()));
  return gelu(inputs[0], form_);
}

torch::Tensor GeluOp::reference(const std::vector<torch::Tensor>& inputs,
                                const runner::OpAttributes& /*attributes*/) const {
  RUNNER_CHECK(inputs.size() == 1, "gelu takes one tensor, got " + std::to_string(inputs.size()));
  const torch::Tensor& x = inputs[0];
  switch (form_) {
    case Approximation::tanh: return at::gelu(x, "tanh");
    case Approximation::sigmoid: return x * torch::sigmoid(kSigmoidScale * x);
    default: return at::gelu(x, "none");
  }
}

std::vector<std::vector<int64_t>> GeluOp::check_shapes() const {
  std::vector<std::vector<int64_t>> shapes = runner::Op::check_shapes();
  shapes.push_back(kThreadedShape);
  return shapes;
}

double GeluOp::tolerance(torch::ScalarType dtype) const {
  // float64: every form within a few 1e-16 of its reference (measured).
  if (dtype == torch::kDouble) return 1e-12;
  switch (form_) {
    // at::gelu(x, "none") on a contiguous float32 tensor of more than one element runs
    // oneDNN's gelu, whose erf differs from SLEEF's and the C library's by an ulp or two;
    // where 1 + erf(x) cancels (x < -2) that reaches 1.4e-6 of the largest value on tensors
    // of 16 to 31 elements (worst of 150000 random ones). On one element, and in float64,
    // the reference is ATen's own kernel, which the op equals bit for bit.
    case Approximation::none: return 2e-6;
    // tanh and sigmoid: equal to the reference bit for bit when both run the same vector
    // width, which runner::cpu_capability() makes ATen's. With AVX512 against LibTorch 1.13's
    // AVX2, tanh's gradient differed by up to 3.8e-6, where 1 - tanh^2 amplifies an ulp.
    default: return 1e-6;
  }
}

void add_gelu_op(runner::PluginBuilder& plugin) {
  plugin.add_op("gelu", kVersion,
                "GELU with a hand-written forward and backward (CPU: vectorized and threaded; "
                "CUDA kernels when built with CUDA)",
                gelu_schema(), [](const runner::Options& options) {
                  return std::make_shared<GeluOp>(approximation_from(options.get_string(kKey)));
                });
}

}  // namespace gelu
