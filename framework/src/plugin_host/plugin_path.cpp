// The folder next to the binary, the running executable's path, and the ordered search path.
#include "plugin_host/plugin_path.hpp"

#include <filesystem>
#include <sstream>

namespace fs = std::filesystem;

namespace runner::plugin_host {

std::string default_plugin_folder(const std::string& executable) {
  return (fs::path(executable).parent_path().parent_path() / "lib" / "runner" / "plugins")
      .lexically_normal()
      .string();
}

std::string current_executable() {
  std::error_code error;
  return fs::read_symlink("/proc/self/exe", error).string();
}

std::vector<std::string> plugin_search_path(const PluginPathSources& sources) {
  std::vector<std::string> folders = sources.command_line;
  std::stringstream environment(sources.environment);
  for (std::string item; std::getline(environment, item, ':');)
    if (!item.empty()) folders.push_back(item);
  folders.insert(folders.end(), sources.experiment.begin(), sources.experiment.end());
  if (!sources.executable.empty()) folders.push_back(default_plugin_folder(sources.executable));
  return folders;
}

}  // namespace runner::plugin_host
