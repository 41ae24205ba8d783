// A SchemaSource with a few components shaped like the real plugins, so no plugin is loaded:
// for the config tests and the config fuzzer.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "config/experiment.hpp"
#include "config/schema_source.hpp"

namespace runner::config::test {

class FakeSchemas : public SchemaSource {
 public:
  FakeSchemas() {
    Schema mnist;
    mnist.text("data_dir", std::nullopt, "Folder with the MNIST files");
    mnist.integer("train_size", 0, "Samples to use; 0: all", 0);
    add(Kind::dataset, "mnist", mnist);

    Schema lenet5;
    lenet5.text("activation", "relu", "Activation op");
    add(Kind::model, "lenet5", lenet5);
    Schema mlp;
    mlp.integers("hidden", std::vector<int64_t>{128}, "Layer widths", 1);
    mlp.texts("norms", std::vector<std::string>{}, "Normalisation after each layer",
              {"none", "batch", "layer"});
    add(Kind::model, "mlp", mlp);

    add(Kind::strategy, "single", Schema());
    Schema ddp;
    ddp.text("backend", "gloo", "Process group backend", {"gloo", "nccl"});
    add(Kind::strategy, "ddp", ddp);
    Schema pipeline;
    pipeline.integer("stages", std::nullopt, "Pipeline stages", 1);
    add(Kind::strategy, "pipeline", pipeline);

    Schema gelu;
    gelu.text("approximate", "none", "Approximation", {"none", "tanh"});
    add(Kind::op, "gelu", gelu);
  }

  const Schema* schema(Kind kind, const std::string& name) const override {
    auto it = schemas_.find({kind, name});
    return it == schemas_.end() ? nullptr : &it->second;
  }

  std::vector<std::string> names(Kind kind) const override {
    std::vector<std::string> out;
    for (const auto& [key, schema] : schemas_)
      if (key.first == kind) out.push_back(key.second);
    return out;
  }

 private:
  void add(Kind kind, const std::string& name, Schema schema) {
    schemas_[{kind, name}] = std::move(schema);
  }

  std::map<std::pair<Kind, std::string>, Schema> schemas_;
};

}  // namespace runner::config::test
