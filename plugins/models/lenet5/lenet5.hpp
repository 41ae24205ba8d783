// Model "lenet5": LeNet-5 (LeCun et al., 1998) for square images of any channels: the classic
// 5x5 convs (1x28x28 MNIST as in the paper) or the CIFAR variant's 3x3 convs. Its activation
// is an op looked up by name, so an op plugin changes the model without touching it.
#pragma once

#include <torch/nn/modules/linear.h>
#include <runner/model.hpp>
#include <runner/options.hpp>
#include <runner/plugin.hpp>

#include "conv_block.hpp"

#include <memory>
#include <string>

namespace lenet5 {

// classic: conv 5x5 padding 2, conv 5x5; cifar: conv 3x3 padding 1, twice.
enum class Variant { classic, cifar };

struct LeNet5Options {
  std::string activation = "relu";  // an op name
  std::string pool = "max_pool2d";  // max, avg (LibTorch's) or the name of a pooling op
  bool fused = true;                // with relu: each conv and its relu as the op fused_conv_relu
  Variant variant = Variant::classic;
  int64_t in_channels = 0;  // 0: the dataset's; else it must be the dataset's
  int64_t image_size = 0;   // 0: the dataset's; else it must be the dataset's

  static LeNet5Options from(const runner::Options& options);
};

runner::Schema lenet5_schema();

// The sides of the feature maps for an image of `image_size`: after each conv, and after the
// second pool (what is flattened).
struct LeNet5Sides {
  int64_t conv1 = 0;
  int64_t conv2 = 0;
  int64_t flat = 0;
};
LeNet5Sides lenet5_sides(Variant variant, int64_t image_size);

class LeNet5 : public runner::Model {
 public:
  // Throws a runner::ConfigError when the dataset's samples are not square images large
  // enough for the variant, when in_channels or image_size are set and differ from the
  // dataset's, or when the activation op takes more than one input; the op library throws
  // one when it has no such op.
  LeNet5(const LeNet5Options& options, const runner::ModelContext& context);

  // (N, C, S, S) -> (N, num_classes) logits
  torch::Tensor forward(const torch::Tensor& inputs) override;
  double forward_flops_per_sample() const override;

 private:
  torch::Tensor activate(const torch::Tensor& x) const { return (*activation_)(x); }

  std::shared_ptr<const runner::Op> activation_;
  model_support::Pool2x2 pool_;
  LeNet5Sides sides_;
  model_support::ConvActivation conv1_{nullptr};
  model_support::ConvActivation conv2_{nullptr};
  torch::nn::Linear fc1_{nullptr};
  torch::nn::Linear fc2_{nullptr};
  torch::nn::Linear fc3_{nullptr};
};

// Registers the model "lenet5".
void add_lenet5_model(runner::PluginBuilder& plugin);

}  // namespace lenet5
