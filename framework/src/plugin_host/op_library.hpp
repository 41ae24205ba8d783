// The OpLibrary a model sees: ops made on first use from the registry, with the options of
// the experiment's [ops.NAME] table or the op's defaults.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "plugin_host/registry.hpp"

namespace runner::plugin_host {

class RegistryOpLibrary : public OpLibrary {
 public:
  RegistryOpLibrary(const Registry& registry, std::map<std::string, Options> configured)
      : registry_(registry), configured_(std::move(configured)) {}

  std::shared_ptr<const Op> get(const std::string& name) const override;
  std::vector<std::string> names() const override { return registry_.names(Kind::op); }

 private:
  Options options_for(const std::string& name) const;

  const Registry& registry_;
  std::map<std::string, Options> configured_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, std::shared_ptr<const Op>> made_;
};

// Every key of `schema` at its default; ConfigError naming `section` for a required key.
Options default_options(const Schema& schema, const std::string& section);

}  // namespace runner::plugin_host
