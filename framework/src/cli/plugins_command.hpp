// `runner plugins`: the plugins found on the plugin path.
// Returns the process exit code; errors are thrown as runner::Error.
#pragma once

#include <string>
#include <vector>

namespace runner::cli {

int plugins_command(const std::vector<std::string>& plugin_path);

}  // namespace runner::cli
