// A model for the strategies' tests: three dense layers with dropout, the last one
// reading the first one's weight too (tied, as a language model's head), so checkpointing
// must route a gradient to a parameter another layer owns.
#pragma once

#include <ATen/CPUGeneratorImpl.h>
#include <runner/runner.hpp>

#include <memory>
#include <mutex>
#include <vector>

namespace runner::strategies::testing {

// tanh(linear(x)), then dropout.
class Dense : public Layer {
 public:
  Dense(int64_t in, int64_t out, double dropout)
      : linear_(register_module("linear", torch::nn::Linear(in, out))),
        dropout_(register_module("dropout", torch::nn::Dropout(dropout))) {}
  torch::Tensor forward(const torch::Tensor& x) override {
    return dropout_->forward(torch::tanh(linear_->forward(x)));
  }
  torch::nn::Linear linear_;
  torch::nn::Dropout dropout_;
};

// x (N, 6) times the first layer's weight (8, 6) transposed, -> (N, 8), then a projection of
// its own -> (N, 3) logits.
class TiedHead : public Layer {
 public:
  TiedHead(torch::Tensor tied) : tied_(std::move(tied)) {
    projection_ = register_module("projection", torch::nn::Linear(8, 3));
  }
  torch::Tensor forward(const torch::Tensor& x) override {  // (N, 6) -> (N, 3)
    return projection_->forward(torch::matmul(x, tied_.t()));
  }
  std::vector<torch::Tensor> tied_parameters() const override { return {tied_}; }
  torch::nn::Linear projection_{nullptr};
  torch::Tensor tied_;
};

class LayeredModel : public Model {
 public:
  explicit LayeredModel(double dropout) {
    first_ = register_module("first", std::make_shared<Dense>(6, 8, dropout));
    second_ = register_module("second", std::make_shared<Dense>(8, 6, dropout));
    head_ = register_module("head", std::make_shared<TiedHead>(first_->linear_->weight));
  }
  torch::Tensor forward(const torch::Tensor& x) override {  // (N, 6) -> (N, 3)
    return head_->forward(second_->forward(first_->forward(x)));
  }
  std::vector<std::shared_ptr<Layer>> layers() override { return {first_, second_, head_}; }
  double forward_flops_per_sample() const override { return 0; }

  std::shared_ptr<Dense> first_, second_;
  std::shared_ptr<TiedHead> head_;
};

// A model that lists no layers.
class Opaque : public Model {
 public:
  Opaque() { linear_ = register_module("linear", torch::nn::Linear(6, 3)); }
  torch::Tensor forward(const torch::Tensor& x) override { return linear_->forward(x); }
  double forward_flops_per_sample() const override { return 0; }
  torch::nn::Linear linear_{nullptr};
};

// (n, 6) inputs and (n) classes from a generator of their own seeded `seed`: the same on every
// call and every thread (ranks are threads in the tests; the global generator is shared).
inline Batch batch_from_seed(uint64_t seed, int64_t n = 16) {
  auto generator = at::make_generator<at::CPUGeneratorImpl>(seed);
  return {torch::randn({n, 6}, generator),
          torch::randint(0, 3, {n}, generator, torch::TensorOptions().dtype(torch::kInt64))};
}

// Replica r of `replicas`: every replicas-th row from r, as the sampler shards.
inline Batch rows_of(const Batch& global, int replica, int replicas) {
  auto rows = torch::arange(replica, global.inputs.size(0), replicas);
  return {global.inputs.index_select(0, rows), global.targets.index_select(0, rows)};
}

// A model M made after seeding the global generator with `seed`, which is locked meanwhile.
template <typename M, typename... Args>
std::shared_ptr<M> seeded(uint64_t seed, Args&&... args) {
  static std::mutex generator;
  std::lock_guard<std::mutex> lock(generator);
  torch::manual_seed(seed);
  return std::make_shared<M>(std::forward<Args>(args)...);
}

inline Batch random_batch(int64_t n) {
  return {torch::randn({n, 6}), torch::randint(0, 3, {n}, torch::kInt64)};  // (n, 6), (n)
}

inline std::unique_ptr<torch::optim::Optimizer> adam(const std::vector<torch::Tensor>& params) {
  return std::make_unique<torch::optim::Adam>(params, torch::optim::AdamOptions(1e-2));
}

}  // namespace runner::strategies::testing
