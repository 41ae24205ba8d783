// What the fused_conv_relu tests share: a convolution case, running the op and its reference
// on it, and the relative error check-op uses.
#pragma once

#include <gtest/gtest.h>
#include <runner/op.hpp>

#include <functional>
#include <string>
#include <vector>

#include "fused_conv_relu_op.hpp"

namespace fused_conv_relu::testing {

struct Case {
  std::vector<int64_t> x;  // (N, C, H, W)
  int64_t out_channels, kernel_h, kernel_w;
  int64_t stride_h, stride_w, pad_h, pad_w;
  bool bias = true;

  std::string name() const {
    std::string text = "x";
    for (int64_t d : x) text += " " + std::to_string(d);
    return text + " O " + std::to_string(out_channels) + " k " + std::to_string(kernel_h) + "x" +
           std::to_string(kernel_w) + " stride " + std::to_string(stride_h) + "," +
           std::to_string(stride_w) + " padding " + std::to_string(pad_h) + "," +
           std::to_string(pad_w) + (bias ? "" : " no bias");
  }
  runner::OpAttributes attributes() const {
    runner::OpAttributes a;
    a.set("stride", {stride_h, stride_w}).set("padding", {pad_h, pad_w});
    return a;
  }
  // Random x, weight and bias (undefined without bias) of `dtype`.
  std::vector<torch::Tensor> inputs(torch::ScalarType dtype) const {
    const auto options = torch::TensorOptions().dtype(dtype);
    return {torch::randn(x, options),
            torch::randn({out_channels, x[1], kernel_h, kernel_w}, options),
            bias ? torch::randn({out_channels}, options) : torch::Tensor()};
  }
};

// Largest |a - b| over the largest |reference|, as `runner check-op` measures.
inline double relative_error(const torch::Tensor& a, const torch::Tensor& reference) {
  const double scale = std::max(reference.abs().max().item<double>(), 1e-30);
  return (a - reference).abs().max().item<double>() / scale;
}

// The output and the gradients of every defined input for the output weighting `v`.
struct Result {
  torch::Tensor output;
  std::vector<torch::Tensor> gradients;
};

using Forward = std::function<torch::Tensor(const std::vector<torch::Tensor>&)>;

inline Result run_with_gradients(const Forward& f, const std::vector<torch::Tensor>& inputs,
                                 const torch::Tensor& v) {
  std::vector<torch::Tensor> leaves;
  for (const torch::Tensor& t : inputs)
    leaves.push_back(t.defined() ? t.detach().clone().requires_grad_(true) : t);
  Result result{f(leaves), {}};
  (result.output * v).sum().backward();
  for (const torch::Tensor& t : leaves)
    if (t.defined()) result.gradients.push_back(t.grad());
  result.output = result.output.detach();
  return result;
}

// `inputs` in float64 (undefined ones kept): the reference runs there, so that the op is held to
// the precise answer rather than to the library's own float32 path. oneDNN 3.7 (LibTorch 2.6 on
// Debian 13) computes conv2d's float32 gradient of x wrongly on AMD Zen 4 with AVX-512 (relative
// error 0.3 to 2; its jit:avx512_core backward_data), while its float64 path is right.
inline std::vector<torch::Tensor> in_double(const std::vector<torch::Tensor>& inputs) {
  std::vector<torch::Tensor> converted;
  for (const torch::Tensor& t : inputs) converted.push_back(t.defined() ? t.to(torch::kDouble) : t);
  return converted;
}

// Expects the op and its reference (in float64) to agree on `inputs`, output and gradients,
// within `tolerance` relative error.
inline void expect_matches_reference(const runner::Op& op, const std::vector<torch::Tensor>& inputs,
                                     const runner::OpAttributes& attributes, double tolerance,
                                     const std::string& label) {
  const runner::ExactFloat32Scope exact_float32;  // conv2d without TF32 on a GPU
  const Forward mine = [&](const std::vector<torch::Tensor>& in) {
    return op.forward(in, attributes);
  };
  const Forward theirs = [&](const std::vector<torch::Tensor>& in) {
    return op.reference(in, attributes);
  };
  const std::vector<torch::Tensor> precise_inputs = in_double(inputs);
  const torch::Tensor expected_output = op.reference(precise_inputs, attributes).detach();
  const torch::Tensor v = torch::randn(expected_output.sizes(), expected_output.options());
  const Result got = run_with_gradients(mine, inputs, v.to(inputs.at(0).scalar_type()));
  const Result want = run_with_gradients(theirs, precise_inputs, v);
  ASSERT_EQ(got.output.sizes(), want.output.sizes()) << label;
  EXPECT_LE(relative_error(got.output, want.output), tolerance) << label << " output";
  ASSERT_EQ(got.gradients.size(), want.gradients.size()) << label;
  const char* names[] = {"x", "weight", "bias"};
  for (size_t i = 0; i < got.gradients.size(); ++i) {
    ASSERT_TRUE(got.gradients[i].defined()) << label << " gradient of " << names[i];
    EXPECT_LE(relative_error(got.gradients[i], want.gradients[i]), tolerance)
        << label << " gradient of " << names[i];
  }
}

}  // namespace fused_conv_relu::testing
