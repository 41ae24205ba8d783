// Throwing config errors, the positions they name, and "did you mean" suggestions.
#include "config/error_text.hpp"

#include "config/did_you_mean.hpp"
#include "runner/errors.hpp"

namespace runner::config {

void fail(const std::string& where, const std::string& what, const std::string& hint) {
  throw ConfigError(where + ": " + what, hint);
}

std::string position(const std::string& file, const toml::source_position& pos) {
  return file + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column);
}

std::string position(const std::string& file, const toml::node& node) {
  return position(file, node.source().begin);
}

std::string file_start(const std::string& file) { return file + ":1:1"; }

std::string joined(const std::vector<std::string>& items) {
  if (items.empty()) return "(none)";
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

std::string suggestion(const std::string& word, const std::vector<std::string>& known) {
  std::string close = did_you_mean(word, known);
  return close.empty() ? "" : "; did you mean '" + close + "'?";
}

}  // namespace runner::config
