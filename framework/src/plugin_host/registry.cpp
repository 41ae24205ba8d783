// Registry: loading every library of the plugin folders, finding components, making them.
#include "plugin_host/registry.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "common/file_kind.hpp"
#include "config/did_you_mean.hpp"
#include "plugin_host/call_plugin.hpp"
#include "plugin_host/library_probe.hpp"

namespace fs = std::filesystem;

namespace runner::plugin_host {
namespace {

// A .so entry that cannot be looked at (a symbolic link loop) or is no file is a plugin
// problem named by its path, not a file-system exception.
std::vector<std::string> plugin_files(const fs::path& folder) {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if (entry.path().extension() != ".so") continue;
    std::error_code error;
    const bool is_folder = entry.is_directory(error);
    if (error) throw PluginError(entry.path().string() + ": " + error.message());
    if (is_folder) continue;
    // Before anything opens it: a FIFO's open waits for a writer.
    if (const auto type = special_file_type(entry.path().string()))
      throw PluginError(entry.path().string() + ": is " + *type + ", not a plugin library",
                        "remove it from the plugin folder");
    files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());  // load order must not depend on the file system
  return files;
}

// Any user may put a file there (a folder, even with the sticky bit) or change it (a library).
bool writable_by_everyone(const std::string& path) {
  struct stat status {};
  return ::stat(path.c_str(), &status) == 0 && (status.st_mode & S_IWOTH) != 0;
}

std::string open_to_everyone_warning(const std::string& what, const std::string& path) {
  return what + " " + path +
         " is writable by every user: code anyone puts there runs as you when runner loads it";
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

}  // namespace

std::string describe(const Registered& registered) {
  return std::string(kind_name(registered.component->kind)) + " '" + registered.component->name +
         "' (" + registered.library->path() + ")";
}

void Registry::load_directories(const std::vector<std::string>& folders) {
  std::set<std::string> seen;
  for (const auto& f : folders_) seen.insert(f);
  for (const auto& folder : folders) {
    std::error_code error;
    if (!fs::is_directory(folder, error)) continue;
    std::string canonical = fs::canonical(folder).string();
    if (!seen.insert(canonical).second) continue;
    folders_.push_back(canonical);
    if (writable_by_everyone(canonical))
      warn_open(open_to_everyone_warning("plugin folder", canonical));
    for (const auto& file : plugin_files(canonical)) {
      if (const auto failure = probe_failure(file)) {
        passed_over_.push_back(file + ": " + *failure);
        continue;
      }
      if (writable_by_everyone(file)) warn_open(open_to_everyone_warning("plugin library", file));
      load_library(file);
    }
  }
}

void Registry::warn_open(const std::string& warning) {
  open_to_everyone_.push_back(warning);
  if (warn_) warn_(warning);
}

void Registry::load_library(const std::string& path) {
  auto library = Library::load(path);
  for (const auto& component : library->components()) {
    auto key = std::make_pair(component.kind, component.name);
    auto it = components_.find(key);
    if (it != components_.end())
      throw PluginError(std::string(kind_name(component.kind)) + " '" + component.name +
                            "' is registered twice: by " + it->second.library->path() + " and by " +
                            path,
                        "remove one of the two libraries from the plugin path");
    components_[key] = Registered{&component, library};
  }
}

const Registered* Registry::find(Kind kind, const std::string& name) const {
  auto it = components_.find({kind, name});
  return it == components_.end() ? nullptr : &it->second;
}

const Registered& Registry::get(Kind kind, const std::string& name) const {
  if (const Registered* r = find(kind, name)) return *r;
  std::string message = std::string("no ") + kind_name(kind) + " named '" + name + "'";
  std::string close = config::did_you_mean(name, names(kind));
  if (!close.empty()) message += "; did you mean '" + close + "'?";
  throw ConfigError(message, std::string("known ") + kind_name(kind) + "s: " + join(names(kind)) +
                                 " (see `runner plugins`)");
}

std::vector<const Registered*> Registry::all() const {
  std::vector<const Registered*> out;
  for (const auto& [key, registered] : components_) out.push_back(&registered);
  return out;
}

const Schema* Registry::schema(Kind kind, const std::string& name) const {
  const Registered* r = find(kind, name);
  return r ? &r->component->schema : nullptr;
}

std::vector<std::string> Registry::names(Kind kind) const {
  std::vector<std::string> out;
  for (const auto& [key, registered] : components_)
    if (key.first == kind) out.push_back(key.second);
  return out;
}

std::shared_ptr<Dataset> Registry::make_dataset(const config::ComponentConfig& config,
                                                const DatasetContext& context) const {
  const Registered& r = get(Kind::dataset, config.name);
  return call_factory(r, [&] { return r.component->make_dataset(config.options, context); });
}

std::shared_ptr<Model> Registry::make_model(const config::ComponentConfig& config,
                                            const ModelContext& context) const {
  const Registered& r = get(Kind::model, config.name);
  return call_factory(r, [&] { return r.component->make_model(config.options, context); });
}

std::optional<ModelEstimate> Registry::estimate_model(const config::ComponentConfig& config,
                                                      const ModelContext& context) const {
  const Registered& r = get(Kind::model, config.name);
  if (!r.component->estimate_model) return std::nullopt;
  auto estimate = call_factory(r, [&] {
    return std::make_shared<ModelEstimate>(r.component->estimate_model(config.options, context));
  });
  return *estimate;
}

std::optional<SplitEstimate> Registry::estimate_split(const config::ComponentConfig& config,
                                                      const ModelContext& context) const {
  const Registered& r = get(Kind::model, config.name);
  const SplitEstimator& estimator = r.component->tensor_parallel.estimate;
  if (!estimator) return std::nullopt;
  auto estimate = call_factory(
      r, [&] { return std::make_shared<SplitEstimate>(estimator(config.options, context)); });
  return *estimate;
}

TensorSplitter Registry::tensor_splitter(const config::ComponentConfig& config) const {
  return get(Kind::model, config.name).component->tensor_parallel.split;
}

std::shared_ptr<Strategy> Registry::make_strategy(const config::ComponentConfig& config) const {
  const Registered& r = get(Kind::strategy, config.name);
  return call_factory(r, [&] { return r.component->make_strategy(config.options); });
}

std::optional<RunPlan> Registry::plan_strategy(const config::ComponentConfig& config,
                                               const PlanInput& input) const {
  const Registered& r = get(Kind::strategy, config.name);
  if (!r.component->plan_strategy) return std::nullopt;
  auto plan = call_factory(r, [&] {
    return std::make_shared<RunPlan>(r.component->plan_strategy(config.options, input));
  });
  return *plan;
}

std::shared_ptr<Op> Registry::make_op(const std::string& name, const Options& options) const {
  const Registered& r = get(Kind::op, name);
  return call_factory(r, [&] { return r.component->make_op(options); });
}

}  // namespace runner::plugin_host
