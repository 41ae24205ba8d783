// Builds the plugin registry from every source of plugin folders.
#pragma once

#include <string>
#include <vector>

#include "plugin_host/registry.hpp"

namespace runner::cli {

// `experiment_file` may be empty; its [experiment] plugin_path is read when it parses.
plugin_host::Registry load_registry(const std::vector<std::string>& command_line,
                                    const std::string& experiment_file);

}  // namespace runner::cli
