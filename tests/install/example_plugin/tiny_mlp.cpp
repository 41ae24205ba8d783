// Model "tiny_mlp": flatten, linear, activation, linear. An example of an out-of-tree model
// plugin; its activation is an op looked up by name, so an op plugin changes it.
#include <torch/nn/modules/linear.h>
#include <runner/plugin.hpp>

#include <memory>
#include <string>

namespace {

runner::Schema tiny_mlp_schema() {
  runner::Schema schema;
  schema.integer("hidden", 32, "width of the hidden layer", 1);
  schema.text("activation", "relu", "name of the op applied after the hidden layer");
  return schema;
}

// The op of that name; the op library throws a ConfigError listing the known ones when
// there is none.
std::shared_ptr<const runner::Op> activation_op(const std::string& name,
                                                const runner::ModelContext& context) {
  std::shared_ptr<const runner::Op> op = context.ops->get(name);
  if (op->arity() != 1)
    throw runner::ConfigError("[model] activation = \"" + name + "\" takes " +
                                  std::to_string(op->arity()) + " inputs; an activation takes one",
                              "choose an op of one input, such as relu");
  return op;
}

class TinyMlp : public runner::Model {
 public:
  TinyMlp(const runner::Options& options, const runner::ModelContext& context) {
    if (context.data.sample_shape.empty() || context.data.num_classes < 1)
      throw runner::ConfigError("model tiny_mlp needs a dataset of shaped samples and classes");
    int64_t features = 1;
    for (int64_t side : context.data.sample_shape) features *= side;  // 784 for 1x28x28
    const int64_t hidden = options.get_int("hidden");
    activation_ = activation_op(options.get_string("activation"), context);
    fc1_ = register_module("fc1", torch::nn::Linear(features, hidden));
    fc2_ = register_module("fc2", torch::nn::Linear(hidden, context.data.num_classes));
  }

  // (N, ...sample_shape) -> (N, num_classes) logits
  torch::Tensor forward(const torch::Tensor& inputs) override {
    torch::Tensor x = inputs.flatten(1);   // (N, 784)
    x = (*activation_)(fc1_->forward(x));  // (N, hidden)
    return fc2_->forward(x);               // (N, num_classes)
  }

  // One multiply-add per weight; activations and biases are not counted.
  double forward_flops_per_sample() const override {
    return 2.0 * static_cast<double>(fc1_->weight.numel() + fc2_->weight.numel());
  }

 private:
  std::shared_ptr<const runner::Op> activation_;
  torch::nn::Linear fc1_{nullptr};
  torch::nn::Linear fc2_{nullptr};
};

}  // namespace

RUNNER_PLUGIN(plugin) {
  plugin.add_model("tiny_mlp", "1.0.0", "flatten, linear, activation op, linear (an example)",
                   tiny_mlp_schema(),
                   [](const runner::Options& options, const runner::ModelContext& context) {
                     return std::make_shared<TinyMlp>(options, context);
                   });
}
