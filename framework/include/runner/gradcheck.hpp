// Gradient check for a hand-written backward, in float64: the gradients autograd computes
// against central finite differences, element by element, as PyTorch's gradcheck does.
#pragma once

#include <torch/autograd.h>
#include <torch/types.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace runner {

struct GradcheckOptions {
  double eps = 1e-6;  // step of the finite differences
  double atol = 1e-5;
  double rtol = 1e-3;
  int directions = 2;  // random output weightings v, each checked against every input element
  uint64_t seed = 0;
};

struct GradcheckResult {
  bool passed = true;
  double max_error = 0;  // largest |autograd - finite difference| seen
  std::string failure;   // the first element out of tolerance; empty when passed
};

using TensorFunction = std::function<torch::Tensor(const std::vector<torch::Tensor>&)>;

namespace detail {

inline bool differentiable(const torch::Tensor& t) { return t.defined() && t.is_floating_point(); }

// sum(v * f(x)) without building a graph.
inline double weighted_output(const TensorFunction& f, const std::vector<torch::Tensor>& x,
                              const torch::Tensor& v) {
  torch::NoGradGuard no_grad;
  return (f(x) * v).sum().item<double>();
}

// d sum(v * f(x)) / d x_i for every differentiable input i (zeros where f ignores it).
inline std::vector<torch::Tensor> autograd_gradients(const TensorFunction& f,
                                                     const std::vector<torch::Tensor>& x,
                                                     const torch::Tensor& v) {
  std::vector<torch::Tensor> leaves, wrt;
  for (const auto& t : x) {
    leaves.push_back(differentiable(t) ? t.detach().requires_grad_(true) : t);
    if (differentiable(t)) wrt.push_back(leaves.back());
  }
  torch::Tensor y = f(leaves);
  std::vector<torch::Tensor> grads =
      torch::autograd::grad({y}, wrt, {v}, /*retain_graph=*/false, /*create_graph=*/false,
                            /*allow_unused=*/true);
  for (size_t i = 0; i < grads.size(); ++i)
    if (!grads[i].defined()) grads[i] = torch::zeros_like(wrt[i]);
  return grads;
}

}  // namespace detail

// Checks, for `options.directions` random v, that autograd's d sum(v * f(x)) / d x_j equals
// (sum(v * f(x + eps e_j)) - sum(v * f(x - eps e_j))) / (2 eps) within atol + rtol * |that|,
// for every element j of every defined floating-point input. Inputs are copied to float64;
// keep them small (each element costs two calls of f).
inline GradcheckResult gradcheck(const TensorFunction& f, const std::vector<torch::Tensor>& inputs,
                                 const GradcheckOptions& options = {}) {
  std::vector<torch::Tensor> x;
  for (const auto& t : inputs)
    x.push_back(detail::differentiable(t) ? t.detach().to(torch::kDouble).contiguous().clone() : t);
  torch::Tensor shape_of_output;
  {
    torch::NoGradGuard no_grad;
    shape_of_output = f(x);
  }
  torch::Generator generator = at::detail::createCPUGenerator(options.seed);
  GradcheckResult result;
  for (int d = 0; d < options.directions; ++d) {
    torch::Tensor v =
        at::randn(shape_of_output.sizes(), generator, torch::kDouble).to(shape_of_output.device());
    std::vector<torch::Tensor> grads = detail::autograd_gradients(f, x, v);
    size_t g = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!detail::differentiable(x[i])) continue;
      torch::Tensor flat = x[i].view(-1);
      torch::Tensor analytic = grads[g++].reshape(-1).cpu();
      for (int64_t j = 0; j < flat.numel(); ++j) {
        const double original = flat[j].item<double>();
        flat[j] = original + options.eps;
        const double plus = detail::weighted_output(f, x, v);
        flat[j] = original - options.eps;
        const double minus = detail::weighted_output(f, x, v);
        flat[j] = original;
        const double numeric = (plus - minus) / (2 * options.eps);
        const double error = std::abs(analytic[j].item<double>() - numeric);
        result.max_error = std::max(result.max_error, error);
        if (result.passed && error > options.atol + options.rtol * std::abs(numeric)) {
          result.passed = false;
          result.failure = "input " + std::to_string(i) + " element " + std::to_string(j) +
                           ": autograd " + std::to_string(analytic[j].item<double>()) +
                           ", finite difference " + std::to_string(numeric);
        }
      }
    }
  }
  return result;
}

}  // namespace runner
