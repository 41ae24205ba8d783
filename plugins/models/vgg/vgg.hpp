// Model "vgg": VGG (Simonyan and Zisserman, 2014) with BatchNorm. Blocks of [conv 3x3 padding 1,
// BatchNorm, activation] x n, each block ending in a 2x2 max-pool, the channels doubling from
// block to block up to 512; then flatten, linear, activation, dropout, linear to the classes.
// The default blocks are VGG-16's 13 convs.
#pragma once

#include <torch/nn/modules/container/modulelist.h>
#include <runner/model.hpp>
#include <runner/options.hpp>
#include <runner/plugin.hpp>

#include <string>
#include <vector>

namespace vgg {

struct VggOptions {
  int64_t width = 64;                          // channels of the first block
  std::vector<int64_t> blocks{2, 2, 3, 3, 3};  // convs per block
  int64_t classifier_hidden = 512;
  double dropout = 0.5;
  bool batch_norm = true;
  std::string activation = "relu";  // an op name

  static VggOptions from(const runner::Options& options);
};

runner::Schema vgg_schema();

// Channels of the convs of block `index` (from 0): width, doubling each block, at most 512.
int64_t block_channels(int64_t width, size_t index);

class Vgg : public runner::Model {
 public:
  // Throws a runner::ConfigError when the dataset's samples are not (C, H, W) images that fit
  // one 2x2 max-pool per block, when blocks is empty, or when the activation op takes more
  // than one input.
  Vgg(const VggOptions& options, const runner::ModelContext& context);

  // (N, C, H, W) -> (N, num_classes) logits
  torch::Tensor forward(const torch::Tensor& inputs) override;
  double forward_flops_per_sample() const override;
  // One per stage: each block (conv_stack: each conv layer), then the classifier.
  std::vector<std::shared_ptr<runner::Layer>> layers() override;

 private:
  // A torch::nn::Sequential per block, (N, channels, H, W) -> (N, channels', H/2, W/2), then
  // one for the classifier, (N, channels, h, w) -> (N, num_classes): where the model can be cut.
  torch::nn::ModuleList stages_{nullptr};
  double forward_flops_ = 0;
};

// Registers the model "vgg".
void add_vgg_model(runner::PluginBuilder& plugin);

}  // namespace vgg
