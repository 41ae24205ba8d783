// Model "simple_conv": one conv layer that keeps the image size, the activation op, a 2x2
// max-pool, then two linear layers (the activation between them) to the classes.
#pragma once

#include <torch/nn/modules/container/sequential.h>
#include <runner/model.hpp>
#include <runner/options.hpp>
#include <runner/plugin.hpp>

#include <string>

namespace simple_conv {

struct SimpleConvOptions {
  int64_t channels = 32;
  int64_t kernel_size = 3;  // odd; padding kernel_size / 2 keeps the image size
  int64_t hidden = 128;
  std::string activation = "relu";  // an op name

  static SimpleConvOptions from(const runner::Options& options);
};

runner::Schema simple_conv_schema();

class SimpleConv : public runner::Model {
 public:
  // Throws a runner::ConfigError when the dataset's samples are not (C, H, W) images of at
  // least 2x2, the kernel size is even, or the activation op takes more than one input.
  SimpleConv(const SimpleConvOptions& options, const runner::ModelContext& context);

  // (N, C, H, W) -> (N, num_classes) logits
  torch::Tensor forward(const torch::Tensor& inputs) override;
  double forward_flops_per_sample() const override;

 private:
  // conv (N, channels, H, W), activation, max-pool (N, channels, H/2, W/2), flatten,
  // linear (N, hidden), activation, linear (N, num_classes)
  torch::nn::Sequential layers_{nullptr};
  double forward_flops_ = 0;
};

// Registers the model "simple_conv".
void add_simple_conv_model(runner::PluginBuilder& plugin);

}  // namespace simple_conv
