#include "lenet5.hpp"

#include <runner/errors.hpp>

#include <vector>

namespace lenet5 {
namespace {

namespace nn = torch::nn;

constexpr int64_t kImageSide = 28;
constexpr int64_t kKernel = 5;
constexpr int64_t kConv1Padding = 2;
constexpr int64_t kConv1Channels = 6;
constexpr int64_t kConv2Channels = 16;
constexpr int64_t kConv1Side = kImageSide + 2 * kConv1Padding - kKernel + 1;  // 28
constexpr int64_t kConv2Side = kConv1Side / 2 - kKernel + 1;                  // 10, after a pool
constexpr int64_t kFlatSide = kConv2Side / 2;                                 // 5, after a pool
constexpr int64_t kFlatFeatures = kConv2Channels * kFlatSide * kFlatSide;     // 400
constexpr int64_t kHidden1 = 120;
constexpr int64_t kHidden2 = 84;

std::string shape_text(const std::vector<int64_t>& shape) {
  if (shape.empty()) return "no shape";
  std::string text;
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? "x" : "") + std::to_string(shape[i]);
  return text;
}

void check_dataset(const runner::DatasetInfo& data) {
  if (data.sample_shape != std::vector<int64_t>{1, kImageSide, kImageSide})
    throw runner::ConfigError(
        "model lenet5 takes 1x28x28 samples; the dataset gives " + shape_text(data.sample_shape),
        "use a 28x28 grey-scale dataset such as mnist");
  if (data.num_classes < 1)
    throw runner::ConfigError("model lenet5 needs a dataset with classes; this one declares " +
                              std::to_string(data.num_classes));
}

std::shared_ptr<const runner::Op> activation_op(const std::string& name,
                                                const runner::ModelContext& context) {
  RUNNER_CHECK(context.ops != nullptr, "the host gave lenet5 no op library");
  std::shared_ptr<const runner::Op> op = context.ops->get(name);
  if (op->arity() != 1)
    throw runner::ConfigError("[model] activation = \"" + name + "\" takes " +
                                  std::to_string(op->arity()) + " inputs; an activation takes one",
                              "choose an op of one input, such as relu");
  return op;
}

// Every weight of a conv is used once per output position (one multiply-add).
double conv_multiply_adds(const nn::Conv2d& conv, int64_t output_side) {
  return static_cast<double>(conv->weight.numel() * output_side * output_side);
}

double linear_multiply_adds(const nn::Linear& linear) {
  return static_cast<double>(linear->weight.numel());
}

}  // namespace

LeNet5Options LeNet5Options::from(const runner::Options& options) {
  LeNet5Options parsed;
  parsed.activation = options.get_string("activation");
  parsed.pool = options.get_string("pool") == "avg" ? Pool::avg : Pool::max;
  return parsed;
}

runner::Schema lenet5_schema() {
  runner::Schema schema;
  schema.text("activation", "relu",
              "name of the op applied after each conv and hidden linear layer");
  schema.text("pool", "max", "2x2 pooling after each conv", {"max", "avg"});
  return schema;
}

LeNet5::LeNet5(const LeNet5Options& options, const runner::ModelContext& context)
    : pool_(options.pool) {
  check_dataset(context.data);
  activation_ = activation_op(options.activation, context);
  conv1_ = register_module(
      "conv1", nn::Conv2d(nn::Conv2dOptions(1, kConv1Channels, kKernel).padding(kConv1Padding)));
  conv2_ = register_module("conv2",
                           nn::Conv2d(nn::Conv2dOptions(kConv1Channels, kConv2Channels, kKernel)));
  fc1_ = register_module("fc1", nn::Linear(kFlatFeatures, kHidden1));
  fc2_ = register_module("fc2", nn::Linear(kHidden1, kHidden2));
  fc3_ = register_module("fc3", nn::Linear(kHidden2, context.data.num_classes));
}

torch::Tensor LeNet5::pool(const torch::Tensor& x) const {
  return pool_ == Pool::max ? torch::max_pool2d(x, 2) : torch::avg_pool2d(x, 2);
}

torch::Tensor LeNet5::forward(const torch::Tensor& inputs) {
  torch::Tensor x = pool(activate(conv1_->forward(inputs)));  // (N, 6, 14, 14)
  x = pool(activate(conv2_->forward(x)));                     // (N, 16, 5, 5)
  x = x.flatten(1);                                           // (N, 400)
  x = activate(fc1_->forward(x));                             // (N, 120)
  x = activate(fc2_->forward(x));                             // (N, 84)
  return fc3_->forward(x);                                    // (N, num_classes)
}

double LeNet5::forward_flops_per_sample() const {
  double multiply_adds = conv_multiply_adds(conv1_, kConv1Side) +
                         conv_multiply_adds(conv2_, kConv2Side) + linear_multiply_adds(fc1_) +
                         linear_multiply_adds(fc2_) + linear_multiply_adds(fc3_);
  return 2 * multiply_adds;
}

void add_lenet5_model(runner::PluginBuilder& plugin) {
  plugin.add_model("lenet5", "1.0.0", "LeNet-5 for 1x28x28 images; activation and pooling by key",
                   lenet5_schema(),
                   [](const runner::Options& options, const runner::ModelContext& context) {
                     return std::make_shared<LeNet5>(LeNet5Options::from(options), context);
                   });
}

}  // namespace lenet5
