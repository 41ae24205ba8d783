// What the gpt2 tests share: a stand-in op library, a language-modeling dataset's info, and the
// options the host would resolve from the schema.
#pragma once

#include <runner/errors.hpp>
#include <runner/model.hpp>
#include <runner/options.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gpt2.hpp"

namespace gpt2::test_support {

// ATen's tanh GELU under the name the model asks for by default, counting its calls.
class CountingGelu : public runner::Op {
 public:
  torch::Tensor forward(const std::vector<torch::Tensor>& inputs,
                        const runner::OpAttributes& /*attributes*/) const override {
    ++calls;
    return torch::gelu(inputs.at(0), "tanh");
  }
  mutable int calls = 0;
};

class AddOp : public runner::Op {
 public:
  int arity() const override { return 2; }
  torch::Tensor forward(const std::vector<torch::Tensor>& inputs,
                        const runner::OpAttributes& /*attributes*/) const override {
    return inputs.at(0) + inputs.at(1);
  }
};

// "torch_gelu_tanh" and "add"; any other name is a ConfigError, as the host's library does.
class FakeOpLibrary : public runner::OpLibrary {
 public:
  std::shared_ptr<const runner::Op> get(const std::string& name) const override {
    if (name == "torch_gelu_tanh") return gelu;
    if (name == "add") return std::make_shared<AddOp>();
    throw runner::ConfigError("no op named '" + name + "'");
  }
  std::vector<std::string> names() const override { return {"add", "torch_gelu_tanh"}; }

  std::shared_ptr<CountingGelu> gelu = std::make_shared<CountingGelu>();
};

// A dataset of sequences of `tokens` token ids below `vocabulary`.
inline runner::DatasetInfo token_data(int64_t vocabulary, int64_t tokens) {
  runner::DatasetInfo data;
  data.sample_shape = {tokens};
  data.num_classes = vocabulary;
  data.task = runner::Task::language_modeling;
  return data;
}

inline runner::ModelContext context(const FakeOpLibrary& ops, runner::DatasetInfo data) {
  runner::ModelContext c;
  c.data = std::move(data);
  c.ops = &ops;
  return c;
}

// The [model] options the host would pass: every key at its default, then `overrides`.
inline runner::Options model_options(const std::map<std::string, runner::Value>& overrides = {}) {
  const runner::Schema schema = gpt2_schema();
  runner::Options options("model");
  for (const runner::KeySpec& key : schema.keys()) options.set(key.name, *key.default_value);
  for (const auto& [key, value] : overrides) options.set(key, value);
  return options;
}

// The GPT-2 parameter count, from the layers' shapes.
inline int64_t gpt2_parameters(int64_t layers, int64_t hidden, int64_t vocabulary,
                               int64_t positions) {
  const int64_t h = hidden;
  return 12 * layers * h * h + 13 * layers * h + vocabulary * h + positions * h + 2 * h;
}

}  // namespace gpt2::test_support
