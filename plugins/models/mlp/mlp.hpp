// Model "mlp": the pure-linear baseline. Flattens each sample, then linear layers with the
// activation op between them, then a linear layer to the classes.
#pragma once

#include <torch/nn/modules/container/sequential.h>
#include <runner/model.hpp>
#include <runner/options.hpp>
#include <runner/plugin.hpp>

#include <string>
#include <vector>

namespace mlp {

struct MlpOptions {
  std::vector<int64_t> hidden{512, 256};  // widths of the hidden layers; empty: one linear layer
  std::string activation = "relu";        // an op name

  static MlpOptions from(const runner::Options& options);
};

runner::Schema mlp_schema();

class Mlp : public runner::Model {
 public:
  // Throws a runner::ConfigError when the dataset is not a classification task of samples
  // with a shape, or when the activation op takes more than one input.
  Mlp(const MlpOptions& options, const runner::ModelContext& context);

  // (N, ...sample_shape) -> (N, num_classes) logits
  torch::Tensor forward(const torch::Tensor& inputs) override;
  double forward_flops_per_sample() const override;

 private:
  // Flatten, then [linear, activation] per hidden layer, then the output linear.
  torch::nn::Sequential layers_{nullptr};
  double forward_flops_ = 0;
};

// Registers the model "mlp".
void add_mlp_model(runner::PluginBuilder& plugin);

}  // namespace mlp
