// An experiment file's text to its raw sections and sweep: TOML syntax and the file's shape
// (which tables exist) are checked here; the keys inside are checked per run, by schema.
#pragma once

#include <memory>
#include <string>

#include "config/raw_config.hpp"

namespace runner::config {

// The parsed document; a syntax error is a ConfigError "file:line:column: <description>".
std::shared_ptr<const toml::table> parse_toml(const std::string& text, const std::string& file);

RawConfig read_document(const std::shared_ptr<const toml::table>& document,
                        const std::string& file);

}  // namespace runner::config
