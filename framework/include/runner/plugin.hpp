// The plugin ABI. A plugin library exports one C function, runner_plugin_entry, returning a
// PluginHeader. The host reads the header's plain fields (ABI version, LibTorch version, C++
// ABI) before it touches anything else, and refuses a mismatch. Authors write:
//
//   RUNNER_PLUGIN(plugin) {
//     plugin.add_model("lenet5", "1.0.0", "LeNet-5 for 28x28 images", schema, factory);
//   }
#pragma once

#include <torch/version.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "runner/dataset.hpp"
#include "runner/kind.hpp"
#include "runner/model.hpp"
#include "runner/op.hpp"
#include "runner/options.hpp"
#include "runner/plan.hpp"
#include "runner/strategy.hpp"
#include "runner/tensor_split.hpp"
#include "runner/version.hpp"

namespace runner {

using DatasetFactory =
    std::function<std::shared_ptr<Dataset>(const Options&, const DatasetContext&)>;
using ModelFactory = std::function<std::shared_ptr<Model>(const Options&, const ModelContext&)>;
using ModelEstimator = std::function<ModelEstimate(const Options&, const ModelContext&)>;
using OpFactory = std::function<std::shared_ptr<Op>(const Options&)>;
using StrategyFactory = std::function<std::shared_ptr<Strategy>(const Options&)>;

struct Component {
  Kind kind = Kind::model;
  std::string name;
  std::string version;
  std::string description;
  Schema schema;
  // Exactly the one matching `kind` is set.
  DatasetFactory make_dataset;
  ModelFactory make_model;
  OpFactory make_op;
  StrategyFactory make_strategy;
  // Optional, models only: sizes the model without allocating it. Without one, the host
  // builds the model to count its parameters and measure what its layers hold.
  ModelEstimator estimate_model;
  // Optional, models only: how the model splits over a tensor-parallel group
  // (add_tensor_parallel). Without one, the strategy tensor refuses the model.
  TensorParallelism tensor_parallel;
  // Optional, strategies only: lays the model's estimate out over the ranks. Without one, the
  // host plans a whole replica per rank.
  StrategyPlanner plan_strategy;
};

class PluginBuilder {
 public:
  void add_dataset(std::string name, std::string version, std::string description, Schema schema,
                   DatasetFactory factory) {
    Component c = make(Kind::dataset, name, version, description, schema);
    c.make_dataset = std::move(factory);
    components_.push_back(std::move(c));
  }
  void add_model(std::string name, std::string version, std::string description, Schema schema,
                 ModelFactory factory, ModelEstimator estimator = {}) {
    Component c = make(Kind::model, name, version, description, schema);
    c.make_model = std::move(factory);
    c.estimate_model = std::move(estimator);
    components_.push_back(std::move(c));
  }
  // Tensor parallelism for the model `model`, added above: kept apart from the model's factory
  // so that a model which does not split never names it.
  void add_tensor_parallel(const std::string& model, TensorParallelism parallelism) {
    for (auto& c : components_)
      if (c.kind == Kind::model && c.name == model) {
        c.tensor_parallel = std::move(parallelism);
        return;
      }
    throw std::invalid_argument("add_tensor_parallel(\"" + model +
                                "\"): no model of that name was added before it");
  }
  void add_op(std::string name, std::string version, std::string description, Schema schema,
              OpFactory factory) {
    Component c = make(Kind::op, name, version, description, schema);
    c.make_op = std::move(factory);
    components_.push_back(std::move(c));
  }
  void add_strategy(std::string name, std::string version, std::string description, Schema schema,
                    StrategyFactory factory, StrategyPlanner planner = {}) {
    Component c = make(Kind::strategy, name, version, description, schema);
    c.make_strategy = std::move(factory);
    c.plan_strategy = std::move(planner);
    components_.push_back(std::move(c));
  }
  const std::vector<Component>& components() const { return components_; }

 private:
  static Component make(Kind kind, std::string& name, std::string& version,
                        std::string& description, Schema& schema) {
    Component c;
    c.kind = kind;
    c.name = std::move(name);
    c.version = std::move(version);
    c.description = std::move(description);
    c.schema = std::move(schema);
    return c;
  }
  std::vector<Component> components_;
};

// Plain data only: the host checks these fields before it runs any of the plugin's code.
struct PluginHeader {
  uint32_t abi_version;
  const char* runner_version;
  const char* torch_version;
  int32_t cxx11_abi;  // _GLIBCXX_USE_CXX11_ABI the library was compiled with
  // Registers the components, once; called only after the fields above matched.
  const PluginBuilder* (*components)();
};

#if defined(_GLIBCXX_USE_CXX11_ABI)
#define RUNNER_CXX11_ABI _GLIBCXX_USE_CXX11_ABI
#else
#define RUNNER_CXX11_ABI 0
#endif

}  // namespace runner

#define RUNNER_PLUGIN_ENTRY_SYMBOL "runner_plugin_entry"

// The entry is a weak symbol: a plugin module holds one, and a program that links several
// plugins' class libraries (a kind's test program) holds one of each and calls none.
// `builder` names a parameter, which parentheses cannot enclose.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define RUNNER_PLUGIN(builder)                                                                    \
  static void runner_plugin_register(::runner::PluginBuilder& builder);                           \
  static const ::runner::PluginBuilder* runner_plugin_components() {                              \
    static const ::runner::PluginBuilder built = [] {                                             \
      ::runner::PluginBuilder b;                                                                  \
      runner_plugin_register(b);                                                                  \
      return b;                                                                                   \
    }();                                                                                          \
    return &built;                                                                                \
  }                                                                                               \
  extern "C" __attribute__((visibility("default"), weak)) const ::runner::PluginHeader*           \
  runner_plugin_entry() {                                                                         \
    static const ::runner::PluginHeader header{RUNNER_ABI_VERSION, RUNNER_VERSION, TORCH_VERSION, \
                                               RUNNER_CXX11_ABI, &runner_plugin_components};      \
    return &header;                                                                               \
  }                                                                                               \
  static void runner_plugin_register(::runner::PluginBuilder& builder)
// NOLINTEND(bugprone-macro-parentheses)
