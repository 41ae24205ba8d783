// lenet5's keys, each variant's geometry and dataset checks, its layers, FLOPs and registration.
#include "lenet5.hpp"

#include <runner/errors.hpp>
#include <runner/option_fields.hpp>

#include "image_model.hpp"

namespace lenet5 {
namespace {

namespace nn = torch::nn;
namespace support = model_support;

constexpr int64_t kConv1Channels = 6;
constexpr int64_t kConv2Channels = 16;
constexpr int64_t kHidden1 = 120;
constexpr int64_t kHidden2 = 84;

struct ConvGeometry {
  int64_t kernel;
  int64_t padding;
};

struct VariantGeometry {
  ConvGeometry conv1;
  ConvGeometry conv2;
};

VariantGeometry geometry(Variant variant) {
  if (variant == Variant::cifar) return {{3, 1}, {3, 1}};
  return {{5, 2}, {5, 0}};
}

const char* variant_name(Variant variant) {
  return variant == Variant::cifar ? "cifar" : "classic";
}

int64_t conv_side(int64_t side, ConvGeometry conv) {
  return side + 2 * conv.padding - conv.kernel + 1;
}

int64_t smallest_image_size(Variant variant) {
  int64_t side = 1;
  while (lenet5_sides(variant, side).flat < 1) ++side;
  return side;
}

// A key that is set (not 0) must agree with the dataset. `what` says what the dataset's value
// is: "3 channels".
void require_key_matches(const std::string& key, int64_t value, int64_t dataset_value,
                         const std::string& what, const runner::DatasetInfo& data) {
  if (value == 0 || value == dataset_value) return;
  throw runner::ConfigError(
      "model lenet5: " + key + " = " + std::to_string(value) + " but the dataset's samples are " +
          support::shape_text(data.sample_shape) + " (" + what + ")",
      "set " + key + " = " + std::to_string(dataset_value) + ", or 0 to take it from the dataset");
}

std::string square_text(int64_t side) { return std::to_string(side) + "x" + std::to_string(side); }

void require_fitting_size(Variant variant, const runner::DatasetInfo& data, int64_t side) {
  if (side >= smallest_image_size(variant)) return;
  throw runner::ConfigError(
      "model lenet5 (variant " + std::string(variant_name(variant)) +
          ") needs images of at least " + square_text(smallest_image_size(variant)) +
          "; the dataset gives " + support::shape_text(data.sample_shape),
      "the classic variant takes images of at least " +
          square_text(smallest_image_size(Variant::classic)) + ", the cifar variant of at least " +
          square_text(smallest_image_size(Variant::cifar)));
}

support::ImageShape check_dataset(const LeNet5Options& options, const runner::DatasetInfo& data) {
  support::ImageShape image = support::require_images("lenet5", data);
  require_key_matches("in_channels", options.in_channels, image.channels,
                      std::to_string(image.channels) + " channels", data);
  if (image.height != image.width)
    throw runner::ConfigError("model lenet5 takes square images; the dataset gives " +
                                  support::shape_text(data.sample_shape),
                              "use a dataset of square images, or a model such as simple_conv");
  require_key_matches("image_size", options.image_size, image.height,
                      square_text(image.height) + " images", data);
  require_fitting_size(options.variant, data, image.height);
  return image;
}

support::ConvShape conv_shape(int64_t in, int64_t out, ConvGeometry conv) {
  return {in, out, conv.kernel, conv.padding};
}

}  // namespace

namespace {

const runner::OptionFields<LeNet5Options>& fields() {
  static const auto fields = [] {
    runner::OptionFields<LeNet5Options> f;
    f.text("activation", &LeNet5Options::activation,
           "name of the op applied after each conv and hidden linear layer");
    // The ops are the defaults: exact to their stated tolerance and faster on LeNet-5's tensors
    // (tools/bench/README.md); LibTorch's path is pool = "max" and fused = false.
    f.text("pool", &LeNet5Options::pool,
           "2x2 pooling after each conv: the name of a pooling op (max_pool2d), or max or avg "
           "(LibTorch's)");
    f.flag("fused", &LeNet5Options::fused,
           "with activation = \"relu\", each conv and its relu as the op fused_conv_relu; other "
           "activations run apart from the conv");
    f.custom({"variant",
              runner::KeyType::string,
              std::string("classic"),
              "classic: 5x5 convs (padding 2, then none); cifar: 3x3 convs with padding 1",
              std::nullopt,
              std::nullopt,
              {"classic", "cifar"}},
             [](LeNet5Options& out, const runner::Options& options, const std::string& key) {
               out.variant = options.get_string(key) == "cifar" ? Variant::cifar : Variant::classic;
             });
    f.integer("in_channels", &LeNet5Options::in_channels,
              "channels of the input images; 0: the dataset's", 0);
    f.integer("image_size", &LeNet5Options::image_size,
              "side of the square input images; 0: the dataset's", 0);
    return f;
  }();
  return fields;
}

}  // namespace

LeNet5Options LeNet5Options::from(const runner::Options& options) { return fields().read(options); }

runner::Schema lenet5_schema() { return fields().schema(); }

LeNet5Sides lenet5_sides(Variant variant, int64_t image_size) {
  VariantGeometry g = geometry(variant);
  LeNet5Sides sides;
  sides.conv1 = conv_side(image_size, g.conv1);
  sides.conv2 = conv_side(sides.conv1 / 2, g.conv2);  // after a pool
  sides.flat = sides.conv2 / 2;                       // after a pool
  return sides;
}

LeNet5::LeNet5(const LeNet5Options& options, const runner::ModelContext& context)
    : pool_("lenet5", options.pool, context) {
  support::ImageShape image = check_dataset(options, context.data);
  activation_ = support::activation_op(options.activation, context);
  auto fused = support::fused_conv_op("lenet5", options.fused && options.activation == "relu",
                                      options.activation, context);
  sides_ = lenet5_sides(options.variant, image.height);
  VariantGeometry g = geometry(options.variant);
  conv1_ = register_module(
      "conv1", support::ConvActivation(conv_shape(image.channels, kConv1Channels, g.conv1),
                                       activation_, fused));
  conv2_ = register_module(
      "conv2", support::ConvActivation(conv_shape(kConv1Channels, kConv2Channels, g.conv2),
                                       activation_, fused));
  int64_t flat_features = kConv2Channels * sides_.flat * sides_.flat;  // 400 for 28x28 classic
  fc1_ = register_module("fc1", nn::Linear(flat_features, kHidden1));
  fc2_ = register_module("fc2", nn::Linear(kHidden1, kHidden2));
  fc3_ = register_module("fc3", nn::Linear(kHidden2, context.data.num_classes));
}

// The shapes in the comments are those of the classic variant on 1x28x28 images.
torch::Tensor LeNet5::forward(const torch::Tensor& inputs) {
  torch::Tensor x = pool_(conv1_->forward(inputs));  // (N, 6, 14, 14)
  x = pool_(conv2_->forward(x));                     // (N, 16, 5, 5)
  x = x.flatten(1);                                  // (N, 400)
  x = activate(fc1_->forward(x));                    // (N, 120)
  x = activate(fc2_->forward(x));                    // (N, 84)
  return fc3_->forward(x);                           // (N, num_classes)
}

// 2 x the multiply-adds of the convs and linears (see image_model.hpp for what is counted).
double LeNet5::forward_flops_per_sample() const {
  double multiply_adds = support::conv_multiply_adds(conv1_->conv, sides_.conv1, sides_.conv1) +
                         support::conv_multiply_adds(conv2_->conv, sides_.conv2, sides_.conv2) +
                         support::linear_multiply_adds(fc1_) + support::linear_multiply_adds(fc2_) +
                         support::linear_multiply_adds(fc3_);
  return 2 * multiply_adds;
}

void add_lenet5_model(runner::PluginBuilder& plugin) {
  plugin.add_model("lenet5", "1.2.0",
                   "LeNet-5 for square images, classic (5x5 convs) or cifar (3x3) variant; "
                   "activation, pooling and conv+relu fusion by key",
                   lenet5_schema(),
                   [](const runner::Options& options, const runner::ModelContext& context) {
                     return std::make_shared<LeNet5>(LeNet5Options::from(options), context);
                   });
}

}  // namespace lenet5
