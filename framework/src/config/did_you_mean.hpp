// Typo suggestions for an unknown key, value or plugin name.
#pragma once

#include <string>
#include <vector>

namespace runner::config {

// The closest of `known` to `word` when it is close enough to be a likely typo, else "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& known);

}  // namespace runner::config
