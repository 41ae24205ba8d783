// The folder next to the binary, the running executable's path, and the ordered search path.
#include "plugin_host/plugin_path.hpp"

#include <filesystem>
#include <sstream>

namespace fs = std::filesystem;

namespace runner::plugin_host {

std::string default_plugin_folder(const std::string& executable) {
  const fs::path prefix = fs::path(executable).parent_path().parent_path().parent_path();
  return (prefix / "lib" / "runner" / "plugins").lexically_normal().string();
}

std::string current_executable() {
  std::error_code error;
  return fs::read_symlink("/proc/self/exe", error).string();
}

std::vector<std::string> environment_folders(const std::string& environment) {
  std::vector<std::string> folders;
  std::stringstream items(environment);
  for (std::string item; std::getline(items, item, ':');)
    if (!item.empty()) folders.push_back(item);
  return folders;
}

std::vector<std::string> plugin_search_path(const PluginPathSources& sources) {
  std::vector<std::string> folders = sources.command_line;
  const std::vector<std::string> environment = environment_folders(sources.environment);
  folders.insert(folders.end(), environment.begin(), environment.end());
  folders.insert(folders.end(), sources.experiment.begin(), sources.experiment.end());
  if (!sources.executable.empty()) folders.push_back(default_plugin_folder(sources.executable));
  return folders;
}

}  // namespace runner::plugin_host
