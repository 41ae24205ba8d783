// vgg's keys, dataset checks, blocks and classifier as stages, forward, FLOPs and registration.
#include "vgg.hpp"

#include <algorithm>
#include <runner/errors.hpp>
#include <runner/option_fields.hpp>

#include "image_model.hpp"

namespace vgg {
namespace {

namespace nn = torch::nn;
namespace support = model_support;

constexpr int64_t kMaxChannels = 512;

using ActivationOp = std::shared_ptr<const runner::Op>;

// Layers of one stage and the multiply-adds of one sample through them.
struct Stage {
  nn::Sequential layers;
  double multiply_adds = 0;
};

// 2x2 max-pools an image takes before a side would drop below 1.
int64_t pools_that_fit(const support::ImageShape& image) {
  int64_t pools = 0;
  for (int64_t side = std::min(image.height, image.width); side >= 2; side /= 2) ++pools;
  return pools;
}

void require_pools_fit(size_t blocks, const support::ImageShape& image,
                       const runner::DatasetInfo& data) {
  int64_t fit = pools_that_fit(image);
  if (static_cast<int64_t>(blocks) <= fit) return;
  std::string fit_text = std::to_string(fit) + (fit == 1 ? " pool" : " pools");
  throw runner::ConfigError(
      "model vgg ends each of its " + std::to_string(blocks) + " blocks in a 2x2 max-pool, but " +
          support::shape_text(data.sample_shape) + " images fit " + fit_text,
      fit == 0
          ? "use images of at least 2x2"
          : "shorten blocks to " + std::to_string(fit) + " or fewer entries, or use larger images");
}

support::ImageShape check_dataset(const VggOptions& options, const runner::DatasetInfo& data) {
  support::ImageShape image = support::require_images("vgg", data);
  if (options.blocks.empty())
    throw runner::ConfigError("model vgg needs at least one block; blocks = []",
                              "the default [2, 2, 3, 3, 3] is VGG-16's 13 convs");
  require_pools_fit(options.blocks.size(), image, data);
  return image;
}

// [conv 3x3, BatchNorm, activation] x convs, then a 2x2 max-pool; `input` is what it takes.
Stage make_block(const support::ImageShape& input, int64_t channels, int64_t convs,
                 const VggOptions& options, const ActivationOp& activation) {
  Stage block;
  for (int64_t i = 0; i < convs; ++i) {
    // BatchNorm's shift makes a conv bias redundant.
    nn::Conv2d conv(nn::Conv2dOptions(i == 0 ? input.channels : channels, channels, 3)
                        .padding(1)
                        .bias(!options.batch_norm));
    block.multiply_adds += support::conv_multiply_adds(conv, input.height, input.width);
    block.layers->push_back(conv);
    if (options.batch_norm) block.layers->push_back(nn::BatchNorm2d(channels));
    block.layers->push_back(support::Activation(activation));
  }
  block.layers->push_back(nn::MaxPool2d(2));
  return block;
}

// flatten, linear, activation, dropout, linear; `input` is what the last block gives.
Stage make_classifier(const support::ImageShape& input, int64_t classes, const VggOptions& options,
                      const ActivationOp& activation) {
  nn::Linear hidden(input.channels * input.height * input.width, options.classifier_hidden);
  nn::Linear output(options.classifier_hidden, classes);
  Stage classifier;
  classifier.layers = nn::Sequential(nn::Flatten(), hidden, support::Activation(activation),
                                     nn::Dropout(options.dropout), output);
  classifier.multiply_adds =
      support::linear_multiply_adds(hidden) + support::linear_multiply_adds(output);
  return classifier;
}

}  // namespace

namespace {

const runner::OptionFields<VggOptions>& fields() {
  static const auto fields = [] {
    runner::OptionFields<VggOptions> f;
    f.integer("width", &VggOptions::width,
              "channels of the first block; each next block doubles them, to 512", 1, kMaxChannels);
    f.integers("blocks", &VggOptions::blocks,
               "convs of each block, each block ending in a 2x2 max-pool; the default is "
               "VGG-16's",
               1);
    f.integer("classifier_hidden", &VggOptions::classifier_hidden,
              "width of the classifier's hidden linear layer", 1);
    f.number("dropout", &VggOptions::dropout,
             "dropout probability before the classifier's last layer", 0, 1);
    f.flag("batch_norm", &VggOptions::batch_norm,
           "BatchNorm after each conv (the convs then have no bias)");
    f.text("activation", &VggOptions::activation,
           "name of the op applied after each conv and the classifier's hidden layer");
    return f;
  }();
  return fields;
}

}  // namespace

VggOptions VggOptions::from(const runner::Options& options) { return fields().read(options); }

runner::Schema vgg_schema() { return fields().schema(); }

int64_t block_channels(int64_t width, size_t index) {
  int64_t channels = std::min(width, kMaxChannels);
  for (size_t i = 0; i < index && channels < kMaxChannels; ++i)
    channels = std::min(2 * channels, kMaxChannels);
  return channels;
}

Vgg::Vgg(const VggOptions& options, const runner::ModelContext& context) {
  support::ImageShape image = check_dataset(options, context.data);
  ActivationOp activation = support::activation_op(options.activation, context);
  nn::ModuleList stages;
  double multiply_adds = 0;
  for (size_t i = 0; i < options.blocks.size(); ++i) {
    int64_t channels = block_channels(options.width, i);
    Stage block = make_block(image, channels, options.blocks[i], options, activation);
    stages->push_back(block.layers);
    multiply_adds += block.multiply_adds;
    image = {channels, image.height / 2, image.width / 2};
  }
  Stage classifier = make_classifier(image, context.data.num_classes, options, activation);
  stages->push_back(classifier.layers);
  stages_ = register_module("stages", stages);
  forward_flops_ = 2 * (multiply_adds + classifier.multiply_adds);
}

torch::Tensor Vgg::forward(const torch::Tensor& inputs) {
  return support::forward_stages(stages_, inputs);
}

// 2 x the multiply-adds of the convs and linears (see image_model.hpp for what is counted).
double Vgg::forward_flops_per_sample() const { return forward_flops_; }

std::vector<std::shared_ptr<runner::Layer>> Vgg::layers() {
  return support::layers_of_stages(stages_);
}

void add_vgg_model(runner::PluginBuilder& plugin) {
  plugin.add_model("vgg", "1.0.0",
                   "VGG with BatchNorm: blocks of 3x3 convs and max-pools, then a classifier; "
                   "VGG-16 by default",
                   vgg_schema(),
                   [](const runner::Options& options, const runner::ModelContext& context) {
                     return std::make_shared<Vgg>(VggOptions::from(options), context);
                   });
}

}  // namespace vgg
