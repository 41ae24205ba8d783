#include "conv_stack.hpp"

#include <runner/errors.hpp>

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

ConvStackOptions ConvStackOptions::from(const runner::Options& options) {
  ConvStackOptions parsed;
  parsed.layers = options.get_int("layers");
  parsed.channels = options.get_int("channels");
  parsed.kernel_size = options.get_int("kernel_size");
  parsed.activation = options.get_string("activation");
  return parsed;
}

runner::Schema conv_stack_schema() {
  runner::Schema schema;
  schema.integer("layers", 2, "conv layers, each followed by the activation", 1);
  schema.integer("channels", 32, "output channels of every conv layer", 1);
  schema.integer("kernel_size", 3, "side of the conv kernels; odd, padded to keep the image size",
                 1);
  schema.text("activation", "relu", "name of the op applied after each conv layer");
  return schema;
}

ConvStack::ConvStack(const ConvStackOptions& options, const runner::ModelContext& context) {
  support::ImageShape image = check_dataset(options, context.data);
  std::shared_ptr<const runner::Op> activation =
      support::activation_op(options.activation, context);
  nn::ModuleList stages;
  double multiply_adds = 0;
  for (int64_t i = 0; i < options.layers; ++i) {
    int64_t in_channels = i == 0 ? image.channels : options.channels;
    nn::Conv2d conv(nn::Conv2dOptions(in_channels, options.channels, options.kernel_size)
                        .padding(options.kernel_size / 2));
    multiply_adds += support::conv_multiply_adds(conv, image.height, image.width);
    stages->push_back(nn::Sequential(conv, support::Activation(activation)));
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

void add_conv_stack_model(runner::PluginBuilder& plugin) {
  plugin.add_model("conv_stack", "1.0.0",
                   "a stack of same-shaped conv layers with an activation op, then a linear layer",
                   conv_stack_schema(),
                   [](const runner::Options& options, const runner::ModelContext& context) {
                     return std::make_shared<ConvStack>(ConvStackOptions::from(options), context);
                   });
}

}  // namespace conv_stack
