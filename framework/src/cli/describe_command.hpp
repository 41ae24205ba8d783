// `runner describe`: a plugin's or the host's keys, with their types, defaults and docs.
// Returns the process exit code; errors are thrown as runner::Error.
#pragma once

#include <string>
#include <vector>

namespace runner::cli {

// `what`: KIND/NAME of a plugin, a host section (train, optimizer, ...) or augment[/NAME];
// empty: the list of all of them.
int describe_command(const std::string& what, const std::vector<std::string>& plugin_path);

}  // namespace runner::cli
