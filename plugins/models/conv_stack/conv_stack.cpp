// conv_stack's keys, dataset checks, its conv layers and linear as stages, FLOPs and registration.
#include "conv_stack.hpp"

#include <runner/errors.hpp>
#include <runner/option_fields.hpp>

#include "conv_block.hpp"
#include "image_model.hpp"

namespace conv_stack {
namespace {

namespace nn = torch::nn;
namespace support = model_support;

support::ImageShape check_dataset(const ConvStackOptions& options,
                                  const runner::DatasetInfo& data) {
  support::ImageShape image = support::require_images("conv_stack", data);
  support::require_odd_kernel("conv_stack", options.kernel_size);
  return image;
}

}  // namespace

namespace {

const runner::OptionFields<ConvStackOptions>& fields() {
  static const auto fields = [] {
    runner::OptionFields<ConvStackOptions> f;
    f.integer("layers", &ConvStackOptions::layers, "conv layers, each followed by the activation",
              1);
    f.integer("channels", &ConvStackOptions::channels, "output channels of every conv layer", 1);
    f.integer("kernel_size", &ConvStackOptions::kernel_size,
              "side of the conv kernels; odd, padded to keep the image size", 1);
    f.text("activation", &ConvStackOptions::activation,
           "name of the op applied after each conv layer");
    f.flag("fused", &ConvStackOptions::fused,
           "each conv and its relu as the op fused_conv_relu (needs activation = \"relu\")");
    return f;
  }();
  return fields;
}

}  // namespace

ConvStackOptions ConvStackOptions::from(const runner::Options& options) {
  return fields().read(options);
}

runner::Schema conv_stack_schema() { return fields().schema(); }

ConvStack::ConvStack(const ConvStackOptions& options, const runner::ModelContext& context) {
  support::ImageShape image = check_dataset(options, context.data);
  std::shared_ptr<const runner::Op> activation =
      support::activation_op(options.activation, context);
  std::shared_ptr<const runner::Op> fused =
      support::fused_conv_op("conv_stack", options.fused, options.activation, context);
  nn::ModuleList stages;
  double multiply_adds = 0;
  for (int64_t i = 0; i < options.layers; ++i) {
    int64_t in_channels = i == 0 ? image.channels : options.channels;
    support::ConvActivation layer(support::ConvShape{in_channels, options.channels,
                                                     options.kernel_size, options.kernel_size / 2},
                                  activation, fused);
    multiply_adds += support::conv_multiply_adds(layer->conv, image.height, image.width);
    stages->push_back(nn::Sequential(layer));
  }
  nn::Linear output(options.channels * image.height * image.width, context.data.num_classes);
  multiply_adds += support::linear_multiply_adds(output);
  stages->push_back(nn::Sequential(nn::Flatten(), output));
  stages_ = register_module("stages", stages);
  forward_flops_ = 2 * multiply_adds;
}

torch::Tensor ConvStack::forward(const torch::Tensor& inputs) {
  return support::forward_stages(stages_, inputs);
}

// 2 x the multiply-adds of the convs and the linear (see image_model.hpp for what is counted).
double ConvStack::forward_flops_per_sample() const { return forward_flops_; }

std::vector<std::shared_ptr<runner::Layer>> ConvStack::layers() {
  return support::layers_of_stages(stages_);
}

void add_conv_stack_model(runner::PluginBuilder& plugin) {
  plugin.add_model("conv_stack", "1.1.0",
                   "a stack of same-shaped conv layers with an activation op, then a linear layer",
                   conv_stack_schema(),
                   [](const runner::Options& options, const runner::ModelContext& context) {
                     return std::make_shared<ConvStack>(ConvStackOptions::from(options), context);
                   });
}

}  // namespace conv_stack
