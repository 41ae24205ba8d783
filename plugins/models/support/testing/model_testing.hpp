// What the image models' tests share: a stand-in for the host's op library, the dataset
// context, the options the host would resolve, and the checks every model must pass.
#pragma once

#include <gtest/gtest.h>
#include <runner/errors.hpp>
#include <runner/model.hpp>
#include <runner/options.hpp>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace model_testing {

// Parameters of a square conv with bias, and of a linear layer with bias.
inline int64_t conv_parameters(int64_t in, int64_t out, int64_t kernel) {
  return out * in * kernel * kernel + out;
}
inline int64_t linear_parameters(int64_t in, int64_t out) { return in * out + out; }

// An op that applies `function` and counts its calls.
class CountingOp : public runner::Op {
 public:
  explicit CountingOp(std::function<torch::Tensor(const torch::Tensor&)> function)
      : function_(std::move(function)) {}
  torch::Tensor forward(const std::vector<torch::Tensor>& inputs,
                        const runner::OpAttributes& /*attributes*/) const override {
    ++calls;
    return function_(inputs.at(0));
  }
  mutable int calls = 0;

 private:
  std::function<torch::Tensor(const torch::Tensor&)> function_;
};

class AddOp : public runner::Op {
 public:
  int arity() const override { return 2; }
  torch::Tensor forward(const std::vector<torch::Tensor>& inputs,
                        const runner::OpAttributes& /*attributes*/) const override {
    return inputs.at(0) + inputs.at(1);
  }
};

// relu(conv2d(x, weight, bias)) with the stride and padding attributes, as the op
// "fused_conv_relu" computes it, counting its calls.
class CountingConvRelu : public runner::Op {
 public:
  int arity() const override { return 3; }
  torch::Tensor forward(const std::vector<torch::Tensor>& inputs,
                        const runner::OpAttributes& attributes) const override {
    ++calls;
    return torch::relu(torch::conv2d(inputs.at(0), inputs.at(1), inputs.at(2),
                                     attributes.get("stride", {1, 1}),
                                     attributes.get("padding", {0, 0})));
  }
  mutable int calls = 0;
};

// LibTorch's max_pool2d with the kernel_size and stride attributes, counting its calls.
class CountingMaxPool : public runner::Op {
 public:
  torch::Tensor forward(const std::vector<torch::Tensor>& inputs,
                        const runner::OpAttributes& attributes) const override {
    ++calls;
    return torch::max_pool2d(inputs.at(0), attributes.get("kernel_size", {2, 2}),
                             attributes.get("stride", {2, 2}));
  }
  mutable int calls = 0;
};

// "relu" and "tanh" (counting their calls), "add" (two inputs), "fused_conv_relu" and
// "max_pool2d"; any other name is a ConfigError, as in the host's library.
class FakeOpLibrary : public runner::OpLibrary {
 public:
  FakeOpLibrary() {
    ops_["relu"] = relu;
    ops_["tanh"] = tanh;
    ops_["add"] = std::make_shared<AddOp>();
    ops_["fused_conv_relu"] = fused_conv_relu;
    ops_["max_pool2d"] = max_pool2d;
  }
  std::shared_ptr<const runner::Op> get(const std::string& name) const override {
    auto it = ops_.find(name);
    if (it == ops_.end()) throw runner::ConfigError("no op named '" + name + "'");
    return it->second;
  }
  std::vector<std::string> names() const override {
    return {"add", "fused_conv_relu", "max_pool2d", "relu", "tanh"};
  }

  std::shared_ptr<CountingOp> relu =
      std::make_shared<CountingOp>([](const torch::Tensor& x) { return torch::relu(x); });
  std::shared_ptr<CountingOp> tanh =
      std::make_shared<CountingOp>([](const torch::Tensor& x) { return torch::tanh(x); });
  std::shared_ptr<CountingConvRelu> fused_conv_relu = std::make_shared<CountingConvRelu>();
  std::shared_ptr<CountingMaxPool> max_pool2d = std::make_shared<CountingMaxPool>();

 private:
  std::map<std::string, std::shared_ptr<const runner::Op>> ops_;
};

inline runner::ModelContext context(const FakeOpLibrary& ops, std::vector<int64_t> sample_shape,
                                    int64_t classes = 10) {
  runner::ModelContext c;
  c.data.sample_shape = std::move(sample_shape);
  c.data.num_classes = classes;
  c.ops = &ops;
  return c;
}

// The options the host would resolve from `schema`: every key at its default, then `overrides`.
inline runner::Options options_for(const runner::Schema& schema,
                                   const std::map<std::string, runner::Value>& overrides = {}) {
  runner::Options options("model");
  for (const runner::KeySpec& key : schema.keys()) options.set(key.name, *key.default_value);
  for (const auto& [key, value] : overrides) options.set(key, value);
  return options;
}

// The ConfigError `build` throws, or none.
inline std::optional<runner::ConfigError> config_error_of(const std::function<void()>& build) {
  try {
    build();
  } catch (const runner::ConfigError& e) {
    return e;
  }
  return std::nullopt;
}

// Runs forward and backward of the loss on `inputs` (in training mode) and returns the names
// of the parameters left without a nonzero gradient.
inline std::vector<std::string> parameters_without_gradient(runner::Model& model,
                                                            const torch::Tensor& inputs,
                                                            int64_t classes) {
  model.train();
  torch::Tensor outputs = model.forward(inputs);
  model.loss(outputs, torch::randint(classes, {inputs.size(0)}, torch::kInt64)).backward();
  std::vector<std::string> missing;
  for (const auto& p : model.named_parameters()) {
    const torch::Tensor& grad = p.value().grad();
    if (!grad.defined() || grad.abs().sum().item<double>() == 0.0) missing.push_back(p.key());
  }
  return missing;
}

// Folding forward over model.layers() gives model.forward (in eval mode, so dropout draws
// nothing); the layers own every parameter once. Returns the number of layers.
inline size_t expect_layers_fold_to_forward(runner::Model& model, const torch::Tensor& inputs) {
  model.eval();
  torch::NoGradGuard no_grad;
  const auto layers = model.layers();
  torch::Tensor x = inputs;
  size_t owned = 0;
  for (const auto& layer : layers) {
    x = layer->forward(x);
    owned += layer->parameters().size();
  }
  EXPECT_TRUE(torch::equal(x, model.forward(inputs)));
  EXPECT_EQ(owned, model.parameters().size());
  return layers.size();
}

}  // namespace model_testing
