// Model "conv_stack": `layers` conv layers of one shape (each keeping the image size, followed
// by the activation op), then flatten and a linear layer to the classes. For comparing a
// shallow stack against a deep one; each layer is a stage where the model can be cut.
#pragma once

#include <torch/nn/modules/container/modulelist.h>
#include <runner/model.hpp>
#include <runner/options.hpp>
#include <runner/plugin.hpp>

#include <string>

namespace conv_stack {

struct ConvStackOptions {
  int64_t layers = 2;
  int64_t channels = 32;
  int64_t kernel_size = 3;          // odd; padding kernel_size / 2 keeps the image size
  std::string activation = "relu";  // an op name
  bool fused = false;               // each conv and its relu as the op fused_conv_relu

  static ConvStackOptions from(const runner::Options& options);
};

runner::Schema conv_stack_schema();

class ConvStack : public runner::Model {
 public:
  // Throws a runner::ConfigError when the dataset's samples are not (C, H, W) images, the
  // kernel size is even, or the activation op takes more than one input.
  ConvStack(const ConvStackOptions& options, const runner::ModelContext& context);

  // (N, C, H, W) -> (N, num_classes) logits
  torch::Tensor forward(const torch::Tensor& inputs) override;
  double forward_flops_per_sample() const override;
  // One per stage: each block (conv_stack: each conv layer), then the classifier.
  std::vector<std::shared_ptr<runner::Layer>> layers() override;

 private:
  // A torch::nn::Sequential per layer holding its conv and activation (or the fused op),
  // (N, C, H, W) -> (N, channels, H, W), then one for the classifier, flatten and linear,
  // -> (N, num_classes).
  torch::nn::ModuleList stages_{nullptr};
  double forward_flops_ = 0;
};

// Registers the model "conv_stack".
void add_conv_stack_model(runner::PluginBuilder& plugin);

}  // namespace conv_stack
