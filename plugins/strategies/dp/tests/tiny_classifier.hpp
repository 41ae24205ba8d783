// The model of dp's tests: Linear(4, 8), ReLU, Linear(8, 3), and a buffer that scales the
// inputs, so that a replica that missed the master's buffers computes something else.
#pragma once

#include <memory>
#include <runner/runner.hpp>

namespace runner::strategies::testing {

class TinyClassifier : public Model {
 public:
  TinyClassifier() {
    first = register_module("first", torch::nn::Linear(4, 8));
    second = register_module("second", torch::nn::Linear(8, 3));
    input_scale = register_buffer("input_scale", torch::ones({1}));
  }
  torch::Tensor forward(const torch::Tensor& x) override {  // (N, 4) -> (N, 3)
    return second(torch::relu(first(x * input_scale)));
  }
  double forward_flops_per_sample() const override { return 2.0 * (4 * 8 + 8 * 3); }

  torch::nn::Linear first{nullptr}, second{nullptr};
  torch::Tensor input_scale;
};

// The host's optimizer factory, SGD with momentum: a step depends on the gradients' history.
inline std::unique_ptr<torch::optim::Optimizer> make_sgd(std::vector<torch::Tensor> params) {
  return std::make_unique<torch::optim::SGD>(std::move(params),
                                             torch::optim::SGDOptions(0.1).momentum(0.9));
}

// A context for `master` on `device` whose make_model builds fresh, differently initialized
// TinyClassifiers on the CPU and counts them in *built.
inline StrategyContext context_for(std::shared_ptr<TinyClassifier> master, torch::Device device,
                                   int* built = nullptr) {
  StrategyContext c;
  c.model = std::move(master);
  c.device = device;
  c.make_optimizer = make_sgd;
  c.make_model = [built]() -> std::shared_ptr<Model> {
    if (built) ++*built;
    return std::make_shared<TinyClassifier>();
  };
  return c;
}

// Largest |a - b| over the largest |b|: the relative difference of two tensors.
inline double relative_difference(const torch::Tensor& a, const torch::Tensor& b) {
  const double scale = b.abs().max().item<double>();
  return (a - b).abs().max().item<double>() / (scale > 0 ? scale : 1.0);
}

}  // namespace runner::strategies::testing
