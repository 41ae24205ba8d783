// mlp's keys, the features of a flattened sample, its linear layers, FLOPs and registration.
#include "mlp.hpp"

#include <runner/errors.hpp>
#include <runner/option_fields.hpp>

#include "image_model.hpp"

namespace mlp {
namespace {

namespace nn = torch::nn;
namespace support = model_support;

// The features of one flattened sample: 784 for 1x28x28.
int64_t sample_features(const runner::DatasetInfo& data) {
  support::require_classification("mlp", data);
  const std::vector<int64_t>& shape = data.sample_shape;
  if (!support::is_fixed_shape(shape))
    throw runner::ConfigError(
        "model mlp takes samples of a fixed shape; the dataset gives " + support::shape_text(shape),
        "use a dataset of images or feature vectors such as mnist");
  int64_t features = 1;
  for (int64_t side : shape) features *= side;
  return features;
}

}  // namespace

namespace {

const runner::OptionFields<MlpOptions>& fields() {
  static const auto fields = [] {
    runner::OptionFields<MlpOptions> f;
    f.integers("hidden", &MlpOptions::hidden,
               "widths of the hidden layers, first to last; [] is a single linear layer", 1);
    f.text("activation", &MlpOptions::activation, "name of the op applied after each hidden layer");
    return f;
  }();
  return fields;
}

}  // namespace

MlpOptions MlpOptions::from(const runner::Options& options) { return fields().read(options); }

runner::Schema mlp_schema() { return fields().schema(); }

Mlp::Mlp(const MlpOptions& options, const runner::ModelContext& context) {
  int64_t features = sample_features(context.data);
  std::shared_ptr<const runner::Op> activation =
      support::activation_op(options.activation, context);
  nn::Sequential layers;
  layers->push_back(nn::Flatten());
  double multiply_adds = 0;
  for (int64_t width : options.hidden) {
    nn::Linear linear(features, width);
    multiply_adds += support::linear_multiply_adds(linear);
    layers->push_back(linear);
    layers->push_back(support::Activation(activation));
    features = width;
  }
  nn::Linear output(features, context.data.num_classes);
  multiply_adds += support::linear_multiply_adds(output);
  layers->push_back(output);
  layers_ = register_module("layers", layers);
  forward_flops_ = 2 * multiply_adds;
}

torch::Tensor Mlp::forward(const torch::Tensor& inputs) { return layers_->forward(inputs); }

// 2 x the multiply-adds of the linears (see image_model.hpp for what is counted).
double Mlp::forward_flops_per_sample() const { return forward_flops_; }

void add_mlp_model(runner::PluginBuilder& plugin) {
  plugin.add_model("mlp", "1.0.0", "flatten, linear layers with an activation op between, linear",
                   mlp_schema(),
                   [](const runner::Options& options, const runner::ModelContext& context) {
                     return std::make_shared<Mlp>(MlpOptions::from(options), context);
                   });
}

}  // namespace mlp
