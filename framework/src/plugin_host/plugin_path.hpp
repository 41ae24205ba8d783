// Where plugins are looked for, in order: --plugin-path, RUNNER_PLUGIN_PATH (':'-separated),
// the experiment's [experiment] plugin_path, and the folder installed next to the binary.
#pragma once

#include <string>
#include <vector>

namespace runner::plugin_host {

struct PluginPathSources {
  std::vector<std::string> command_line;
  std::string environment;  // the value of RUNNER_PLUGIN_PATH, may be empty
  std::vector<std::string> experiment;
  std::string executable;  // path of the running binary, for the default folder
};

std::vector<std::string> plugin_search_path(const PluginPathSources& sources);

// The folders of RUNNER_PLUGIN_PATH's value, empty entries left out.
std::vector<std::string> environment_folders(const std::string& environment);

// The plugins of the prefix the host program lies in: PREFIX/libexec/runner/runner ->
// PREFIX/lib/runner/plugins.
std::string default_plugin_folder(const std::string& executable);

// /proc/self/exe, resolved.
std::string current_executable();

}  // namespace runner::plugin_host
