// Throwing config errors, the positions they name, and "did you mean" suggestions.
#include "config/error_text.hpp"

#include "common/clipped_text.hpp"
#include "config/did_you_mean.hpp"
#include "runner/errors.hpp"

namespace runner::config {

// A net under the quotes clipped where each message is made: however a user's text reaches
// `where` or `what`, neither grows past a few quotes' length.
constexpr size_t kMessagePartCharacters = 5 * kQuotedCharacters;

void fail(const std::string& where, const std::string& what, const std::string& hint) {
  throw ConfigError(
      clipped(where, kMessagePartCharacters) + ": " + clipped(what, kMessagePartCharacters), hint);
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

std::string quoted_value(const Value& value) {
  // A string keeps its closing quote, so the clip mark reads as outside the value.
  const auto* text = std::get_if<std::string>(&value);
  if (!text || characters_in(*text) <= kQuotedCharacters) return clipped(value_to_string(value));
  return value_to_string(Value(first_characters(*text, kQuotedCharacters))) +
         clip_mark(characters_in(*text));
}

std::string suggestion(const std::string& word, const std::vector<std::string>& known) {
  std::string close = did_you_mean(word, known);
  return close.empty() ? "" : "; did you mean '" + close + "'?";
}

}  // namespace runner::config
