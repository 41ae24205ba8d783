// `runner plugins`: lists the components of every plugin library found.
#include "cli/plugins_command.hpp"

#include <fmt/format.h>

#include <iostream>

#include "cli/registry_loader.hpp"
#include "plugin_host/host_owned_errors.hpp"

namespace runner::cli {
namespace {

int list_plugins(const plugin_host::Registry& registry) {
  std::cout << "plugin folders:\n";
  for (const auto& folder : registry.folders()) std::cout << "  " << folder << "\n";
  std::cout << fmt::format("\n{:<24} {:<8} {:<44} {}\n", "component", "version", "description",
                           "library");
  for (const plugin_host::Registered* r : registry.all()) {
    const Component& c = *r->component;
    std::cout << fmt::format("{:<24} {:<8} {:<44} {}\n",
                             std::string(kind_name(c.kind)) + "/" + c.name, c.version,
                             c.description, r->library->path());
  }
  return 0;
}

}  // namespace

int plugins_command(const std::vector<std::string>& plugin_path) {
  plugin_host::Registry registry = load_registry(plugin_path, "");
  return plugin_host::with_host_owned_errors([&] { return list_plugins(registry); });
}

}  // namespace runner::cli
