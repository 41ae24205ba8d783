// A model for the tests of `tensor` that splits as Megatron-LM's MLP: a column-parallel linear
// 6 -> 8, tanh, a row-parallel linear 8 -> 6 (its bias whole), tanh; then a head 6 -> 3 that
// every rank holds whole. Two layers, so checkpointing recomputes a split layer's collectives.
#pragma once

#include <runner/runner.hpp>

#include <memory>
#include <utility>
#include <vector>

namespace runner::strategies::testing {

class SplitMlpLayer : public Layer {
 public:
  SplitMlpLayer()
      : up_(register_module("up", torch::nn::Linear(6, 8))),
        down_(register_module("down", torch::nn::Linear(8, 6))) {}

  torch::Tensor forward(const torch::Tensor& x) override {  // (N, 6) -> (N, 6)
    namespace tp = tensor_parallel;
    if (!group_) return torch::tanh(down_->forward(torch::tanh(up_->forward(x))));
    torch::Tensor hidden =
        torch::tanh(up_->forward(tp::enter_split_region(x, group_)));  // (N, 8/t)
    torch::Tensor partial = torch::nn::functional::linear(hidden, down_->weight);
    return torch::tanh(tp::leave_split_region(partial, group_) + down_->bias);
  }

  std::vector<torch::Tensor> split(std::shared_ptr<Communicator> group) {
    namespace tp = tensor_parallel;
    torch::NoGradGuard no_grad;
    up_->weight.set_data(tp::part_of(up_->weight, 0, *group));
    up_->bias.set_data(tp::part_of(up_->bias, 0, *group));
    down_->weight.set_data(tp::part_of(down_->weight, 1, *group));
    group_ = std::move(group);
    return {up_->weight, up_->bias, down_->weight};
  }

  torch::nn::Linear up_, down_;
  std::shared_ptr<Communicator> group_;
};

class HeadLayer : public Layer {
 public:
  HeadLayer() : head_(register_module("head", torch::nn::Linear(6, 3))) {}
  torch::Tensor forward(const torch::Tensor& x) override { return head_->forward(x); }
  torch::nn::Linear head_;
};

class SplitMlp : public Model {
 public:
  SplitMlp() {
    mlp_ = register_module("mlp", std::make_shared<SplitMlpLayer>());
    head_ = register_module("head", std::make_shared<HeadLayer>());
  }
  torch::Tensor forward(const torch::Tensor& x) override {  // (N, 6) -> (N, 3)
    return head_->forward(mlp_->forward(x));
  }
  std::vector<std::shared_ptr<Layer>> layers() override { return {mlp_, head_}; }
  double forward_flops_per_sample() const override { return 0; }

  std::shared_ptr<SplitMlpLayer> mlp_;
  std::shared_ptr<HeadLayer> head_;
};

// SplitMlp's split as the host hands it to a strategy (StrategyContext::split_tensor_parallel).
inline void give_split(StrategyContext& context, const std::shared_ptr<SplitMlp>& model) {
  context.split_tensor_parallel = [model](std::shared_ptr<Communicator> group) {
    return model->mlp_->split(std::move(group));
  };
}

}  // namespace runner::strategies::testing
