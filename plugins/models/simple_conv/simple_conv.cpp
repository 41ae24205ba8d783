// simple_conv's keys, dataset checks, its layers in a Sequential, FLOPs and registration.
#include "simple_conv.hpp"

#include <runner/errors.hpp>
#include <runner/option_fields.hpp>

#include "image_model.hpp"

namespace simple_conv {
namespace {

namespace nn = torch::nn;
namespace support = model_support;

support::ImageShape check_dataset(const SimpleConvOptions& options,
                                  const runner::DatasetInfo& data) {
  support::ImageShape image = support::require_images("simple_conv", data);
  support::require_odd_kernel("simple_conv", options.kernel_size);
  if (image.height < 2 || image.width < 2)
    throw runner::ConfigError(
        "model simple_conv needs images of at least 2x2 for its 2x2 max-pool; the dataset gives " +
            support::shape_text(data.sample_shape),
        "use larger images");
  return image;
}

}  // namespace

namespace {

const runner::OptionFields<SimpleConvOptions>& fields() {
  static const auto fields = [] {
    runner::OptionFields<SimpleConvOptions> f;
    f.integer("channels", &SimpleConvOptions::channels, "output channels of the conv layer", 1);
    f.integer("kernel_size", &SimpleConvOptions::kernel_size,
              "side of the conv kernel; odd, padded to keep the image size", 1);
    f.integer("hidden", &SimpleConvOptions::hidden, "width of the hidden linear layer", 1);
    f.text("activation", &SimpleConvOptions::activation,
           "name of the op applied after the conv and the hidden layer");
    return f;
  }();
  return fields;
}

}  // namespace

SimpleConvOptions SimpleConvOptions::from(const runner::Options& options) {
  return fields().read(options);
}

runner::Schema simple_conv_schema() { return fields().schema(); }

SimpleConv::SimpleConv(const SimpleConvOptions& options, const runner::ModelContext& context) {
  support::ImageShape image = check_dataset(options, context.data);
  std::shared_ptr<const runner::Op> activation =
      support::activation_op(options.activation, context);
  nn::Conv2d conv(nn::Conv2dOptions(image.channels, options.channels, options.kernel_size)
                      .padding(options.kernel_size / 2));
  int64_t pooled_height = image.height / 2;
  int64_t pooled_width = image.width / 2;
  nn::Linear hidden(options.channels * pooled_height * pooled_width, options.hidden);
  nn::Linear output(options.hidden, context.data.num_classes);
  layers_ = register_module(
      "layers", nn::Sequential(conv, support::Activation(activation), nn::MaxPool2d(2),
                               nn::Flatten(), hidden, support::Activation(activation), output));
  forward_flops_ =
      2 * (support::conv_multiply_adds(conv, image.height, image.width) +
           support::linear_multiply_adds(hidden) + support::linear_multiply_adds(output));
}

torch::Tensor SimpleConv::forward(const torch::Tensor& inputs) { return layers_->forward(inputs); }

// 2 x the multiply-adds of the conv and linears (see image_model.hpp for what is counted).
double SimpleConv::forward_flops_per_sample() const { return forward_flops_; }

void add_simple_conv_model(runner::PluginBuilder& plugin) {
  plugin.add_model("simple_conv", "1.0.0",
                   "one conv layer, activation, 2x2 max-pool, two linear layers",
                   simple_conv_schema(),
                   [](const runner::Options& options, const runner::ModelContext& context) {
                     return std::make_shared<SimpleConv>(SimpleConvOptions::from(options), context);
                   });
}

}  // namespace simple_conv
