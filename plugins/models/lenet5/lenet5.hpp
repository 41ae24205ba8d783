// Model "lenet5": LeNet-5 (LeCun et al., 1998) for 1x28x28 images. Its activation is an op
// looked up by name, so an op plugin changes the model without touching it.
#pragma once

#include <runner/model.hpp>
#include <runner/options.hpp>
#include <runner/plugin.hpp>

#include <memory>
#include <string>

namespace lenet5 {

enum class Pool { max, avg };

struct LeNet5Options {
  std::string activation = "relu";  // an op name
  Pool pool = Pool::max;

  static LeNet5Options from(const runner::Options& options);
};

runner::Schema lenet5_schema();

class LeNet5 : public runner::Model {
 public:
  // Throws a runner::ConfigError when the dataset's samples are not 1x28x28 or the activation
  // op takes more than one input; the op library throws one when it has no such op.
  LeNet5(const LeNet5Options& options, const runner::ModelContext& context);

  // (N, 1, 28, 28) -> (N, num_classes) logits
  torch::Tensor forward(const torch::Tensor& inputs) override;
  double forward_flops_per_sample() const override;

 private:
  torch::Tensor activate(const torch::Tensor& x) const { return (*activation_)(x); }
  torch::Tensor pool(const torch::Tensor& x) const;

  std::shared_ptr<const runner::Op> activation_;
  Pool pool_;
  torch::nn::Conv2d conv1_{nullptr};
  torch::nn::Conv2d conv2_{nullptr};
  torch::nn::Linear fc1_{nullptr};
  torch::nn::Linear fc2_{nullptr};
  torch::nn::Linear fc3_{nullptr};
};

// Registers the model "lenet5".
void add_lenet5_model(runner::PluginBuilder& plugin);

}  // namespace lenet5
