// The shape of every config error, in one place: "<where>: <what is wrong>" on one line, and the
// fix as the hint. `where` is "file:line:column" or "--set key=value".
#pragma once

#include <toml++/toml.h>

#include "runner/options.hpp"

#include <string>
#include <vector>

namespace runner::config {

[[noreturn]] void fail(const std::string& where, const std::string& what,
                       const std::string& hint = {});

// "file:line:column".
std::string position(const std::string& file, const toml::source_position& pos);
std::string position(const std::string& file, const toml::node& node);
// Where a value that is absent from the file is reported: the top of the file.
std::string file_start(const std::string& file);

// "a, b, c", or "(none)" when empty.
std::string joined(const std::vector<std::string>& items);

// The value as TOML writes it, clipped to a few hundred characters for a message.
std::string quoted_value(const Value& value);

// "; did you mean 'x'?" when one of `known` is close to `word`, else "".
std::string suggestion(const std::string& word, const std::vector<std::string>& known);

}  // namespace runner::config
