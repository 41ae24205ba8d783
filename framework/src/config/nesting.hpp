// How deep a TOML text nests, measured before it is parsed: toml++ builds and destroys nested
// tables and values by recursion, so a key 50,000 levels deep overflows the stack.
#pragma once

#include <optional>
#include <string>

namespace runner::config {

// Tables, arrays and inline tables deeper than this are refused; real experiments use 4.
constexpr int kMaxNesting = 64;

struct TooDeep {
  int line = 0;   // 1-based line of the key, header or value that goes too deep
  int depth = 0;  // its depth: header segments + key segments + enclosing values
};

// The first place in `text` nested deeper than `limit`, if any. A [a.b] header, the dotted
// key under it and the inline tables and arrays of its value add up.
std::optional<TooDeep> find_too_deep(const std::string& text, int limit = kMaxNesting);

// Throws ConfigError "<where>[:<line>]: ... nested N levels deep" when `text` is too deep;
// `where` is the file, or a --set that has no lines of its own.
void require_shallow(const std::string& text, const std::string& where, bool with_line = true);

}  // namespace runner::config
