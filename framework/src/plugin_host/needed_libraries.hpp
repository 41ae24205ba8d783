// The libraries a shared object asks the loader for (its DT_NEEDED entries), read from the file
// without loading it: the release of LibTorch a plugin was built against shows there when the
// loader could not even open it.
#pragma once

#include <string>
#include <vector>

namespace runner::plugin_host {

// In the file's order. Empty when the file has no dynamic section, or when a table it points
// at does not lie within the file (dlopen then says what is wrong). Call it on a file that
// require_whole_shared_object accepted.
std::vector<std::string> needed_libraries(const std::string& path);

}  // namespace runner::plugin_host
