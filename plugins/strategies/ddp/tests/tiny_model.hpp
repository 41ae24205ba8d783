// A small classifier for the ddp tests: (B, 4) -> (B, 3), with a BatchNorm whose running
// statistics are buffers.
#pragma once

#include <ATen/CPUGeneratorImpl.h>
#include <runner/runner.hpp>

#include <mutex>
#include <utility>

namespace runner::testing {

class TinyModel : public Model {
 public:
  explicit TinyModel(bool batch_norm = false) : batch_norm_(batch_norm) {
    first_ = register_module("first", torch::nn::Linear(4, 8));
    norm_ = register_module("norm", torch::nn::BatchNorm1d(8));
    second_ = register_module("second", torch::nn::Linear(8, 3));
  }
  torch::Tensor forward(const torch::Tensor& x) override {
    torch::Tensor h = first_->forward(x);  // (B, 8)
    if (batch_norm_) h = norm_->forward(h);
    return second_->forward(torch::relu(h));  // (B, 3)
  }
  double forward_flops_per_sample() const override { return 2.0 * (4 * 8 + 8 * 3); }

 private:
  bool batch_norm_;
  torch::nn::Linear first_{nullptr}, second_{nullptr};
  torch::nn::BatchNorm1d norm_{nullptr};
};

inline OptimizerFactory sgd(double lr) {
  return [lr](std::vector<torch::Tensor> params) -> std::unique_ptr<torch::optim::Optimizer> {
    return std::make_unique<torch::optim::SGD>(std::move(params),
                                               torch::optim::SGDOptions(lr).momentum(0.9));
  };
}

// (B, 4) inputs and (B) class ids of step `step`, the same on every call. A generator of its
// own: ranks are threads here, and the global generator is shared among them.
inline Batch batch_of(int64_t step, int64_t size = 16) {
  auto generator = at::make_generator<at::CPUGeneratorImpl>(1000 + static_cast<uint64_t>(step));
  return {torch::randn({size, 4}, generator),
          torch::randint(0, 3, {size}, generator, torch::TensorOptions().dtype(torch::kInt64))};
}

// A model initialized from `seed`; the global generator is locked while it draws.
inline std::shared_ptr<TinyModel> seeded_model(uint64_t seed, bool batch_norm = false) {
  static std::mutex generator;
  std::lock_guard<std::mutex> lock(generator);
  torch::manual_seed(seed);
  return std::make_shared<TinyModel>(batch_norm);
}

// Every parameter, flattened and joined: (all elements).
inline torch::Tensor flat_parameters(Model& model) {
  std::vector<torch::Tensor> parts;
  for (const auto& p : model.parameters()) parts.push_back(p.detach().flatten());
  return torch::cat(parts).clone();
}

}  // namespace runner::testing
