// Every component of every plugin library found on the plugin path, by kind and name.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/experiment.hpp"
#include "config/schema_source.hpp"
#include "plugin_host/library.hpp"

namespace runner::plugin_host {

struct Registered {
  const Component* component = nullptr;
  std::shared_ptr<Library> library;
};

// "model 'lenet5' (/path/to/liblenet5.so)", for messages.
std::string describe(const Registered& registered);

class Registry : public config::SchemaSource {
 public:
  // Loads every *.so in each folder (missing folders are skipped; the same folder twice is
  // read once). A library that crashes, ends the process or hangs as it loads in a child
  // (library_probe.hpp) is passed over, named in passed_over(). Throws PluginError for another
  // bad library or a name registered twice.
  void load_directories(const std::vector<std::string>& folders);
  void load_library(const std::string& path);

  const Registered* find(Kind kind, const std::string& name) const;
  // Like find, but a ConfigError listing the known names when there is none.
  const Registered& get(Kind kind, const std::string& name) const;
  std::vector<const Registered*> all() const;
  const std::vector<std::string>& folders() const { return folders_; }
  // "<library>: crashed with signal 11 (SIGSEGV) while loading", one per library.
  const std::vector<std::string>& passed_over() const { return passed_over_; }
  // "plugin folder /tmp/p is writable by every user, ...": each folder or library loaded that
  // any user could have put code into. Each is also handed to the warning sink, if one is set,
  // before any library of the folder (or that library) runs.
  const std::vector<std::string>& open_to_everyone() const { return open_to_everyone_; }
  void set_warning_sink(std::function<void(const std::string&)> sink) { warn_ = std::move(sink); }

  const Schema* schema(Kind kind, const std::string& name) const override;
  std::vector<std::string> names(Kind kind) const override;

  // Factories: exceptions from plugin code become errors naming the library and component.
  std::shared_ptr<Dataset> make_dataset(const config::ComponentConfig& config,
                                        const DatasetContext& context) const;
  std::shared_ptr<Model> make_model(const config::ComponentConfig& config,
                                    const ModelContext& context) const;
  // The model's own estimate, made without building it; nullopt when it has no estimator.
  std::optional<ModelEstimate> estimate_model(const config::ComponentConfig& config,
                                              const ModelContext& context) const;
  // What the model's tensor-parallel split divides; nullopt when it registered no split or no
  // estimate of it.
  std::optional<SplitEstimate> estimate_split(const config::ComponentConfig& config,
                                              const ModelContext& context) const;
  // The model's tensor-parallel split; empty when it registered none.
  TensorSplitter tensor_splitter(const config::ComponentConfig& config) const;
  std::shared_ptr<Strategy> make_strategy(const config::ComponentConfig& config) const;
  // The strategy's own plan; nullopt when it has no planner.
  std::optional<RunPlan> plan_strategy(const config::ComponentConfig& config,
                                       const PlanInput& input) const;
  std::shared_ptr<Op> make_op(const std::string& name, const Options& options) const;

 private:
  void warn_open(const std::string& warning);

  std::vector<std::string> folders_;
  std::vector<std::string> passed_over_;
  std::vector<std::string> open_to_everyone_;
  std::function<void(const std::string&)> warn_;
  std::map<std::pair<Kind, std::string>, Registered> components_;
};

}  // namespace runner::plugin_host
