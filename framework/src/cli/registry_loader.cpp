// The registry from --plugin-path, RUNNER_PLUGIN_PATH, the experiment's plugin_path, the binary's.
#include "cli/registry_loader.hpp"

#include <toml++/toml.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "common/file_kind.hpp"
#include "config/experiment_file.hpp"
#include "config/nesting.hpp"
#include "plugin_host/plugin_path.hpp"

namespace runner::cli {
namespace {

// A path that is no regular file of a sane size is refused here, before anything opens it
// (a FIFO blocks the open). Past that, best effort: a file that does not parse yields nothing
// here and its error comes later, from the validation that names the line.
std::vector<std::string> experiment_plugin_path(const std::string& file) {
  std::vector<std::string> folders;
  if (file.empty()) return folders;
  const std::string content = config::read_experiment_file(file);
  try {
    if (config::find_too_deep(content)) return folders;  // refused, with its line, later
    toml::table table = toml::parse(content, file);
    if (auto* list = table["experiment"]["plugin_path"].as_array())
      for (const auto& item : *list)
        if (auto text = item.value<std::string>()) folders.push_back(*text);
  } catch (const std::exception&) {
  }
  return folders;
}

void require_folders(const std::vector<std::string>& folders, const std::string& source) {
  for (const auto& folder : folders) {
    std::error_code error;
    if (std::filesystem::is_directory(folder, error)) continue;
    if (error && error != std::errc::no_such_file_or_directory &&
        error != std::errc::not_a_directory)
      throw PluginError("plugin path " + folder + ": " + error.message() + " (from " + source +
                        ")");
    if (const auto type = special_file_type(folder))
      throw ConfigError("plugin path " + folder + " is not a folder but " + *type + " (from " +
                        source + ")");
    if (std::filesystem::exists(folder, error))
      throw ConfigError("plugin path " + folder + " is not a folder (from " + source + ")",
                        "give the folder that holds the plugin libraries, not a file in it");
    throw ConfigError("plugin folder not found: " + folder + " (from " + source + ")");
  }
}

}  // namespace

plugin_host::Registry load_registry(const std::vector<std::string>& command_line,
                                    const std::string& experiment_file) {
  plugin_host::PluginPathSources sources;
  sources.command_line = command_line;
  require_folders(command_line, "--plugin-path");
  if (const char* env = std::getenv("RUNNER_PLUGIN_PATH")) sources.environment = env;
  require_folders(plugin_host::environment_folders(sources.environment), "RUNNER_PLUGIN_PATH");
  sources.experiment = experiment_plugin_path(experiment_file);
  require_folders(sources.experiment, experiment_file + " [experiment] plugin_path");
  sources.executable = plugin_host::current_executable();
  plugin_host::Registry registry;
  registry.set_warning_sink(
      [](const std::string& warning) { std::cerr << "runner: warning: " << warning << "\n"; });
  registry.load_directories(plugin_host::plugin_search_path(sources));
  for (const auto& library : registry.passed_over())
    std::cerr << "runner: warning: plugin library " << library << "; passed over\n";

  return registry;
}

}  // namespace runner::cli
