// RegistryOpLibrary: an op's options from [ops.NAME] or its schema's defaults, made on first use.
#include "plugin_host/op_library.hpp"

namespace runner::plugin_host {

Options default_options(const Schema& schema, const std::string& section) {
  Options options(section);
  for (const auto& key : schema.keys()) {
    if (!key.default_value)
      throw ConfigError("[" + section + "] needs a value for '" + key.name + "'",
                        "add " + key.name + " = ... to [" + section + "] of the experiment");
    options.set(key.name, *key.default_value);
  }
  return options;
}

Options RegistryOpLibrary::options_for(const std::string& name) const {
  auto it = configured_.find(name);
  if (it != configured_.end()) return it->second;
  return default_options(registry_.get(Kind::op, name).component->schema, "ops." + name);
}

std::shared_ptr<const Op> RegistryOpLibrary::get(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = made_.find(name);
  if (it != made_.end()) return it->second;
  std::shared_ptr<const Op> op = registry_.make_op(name, options_for(name));
  made_[name] = op;
  return op;
}

}  // namespace runner::plugin_host
