// Parsing an experiment file's TOML and reading its tables into raw sections, [ops.*] and [sweep].
#include "config/read_document.hpp"

#include <algorithm>

#include "common/clipped_text.hpp"
#include "config/error_text.hpp"
#include "config/nesting.hpp"
#include "config/sections.hpp"
#include "config/sweep.hpp"
#include "config/toml_values.hpp"

namespace runner::config {
namespace {

const toml::table& section_table(const toml::key& key, const toml::node& node,
                                 const std::string& file, const std::string& section) {
  if (const auto* table = node.as_table()) return *table;
  fail(position(file, key.source().begin),
       section + " must be a table " + header(section) + ", not " + describe_node(node),
       "write the keys under a " + header(section) + " header");
}

RawSection read_section(const std::shared_ptr<const toml::table>& document,
                        const toml::table& table, const std::string& file) {
  RawSection section{position(file, table), {}};
  for (const auto& [key, node] : table)
    section.values[std::string(key.str())] =
        RawValue{node_in(document, node), position(file, key.source().begin), false};
  return section;
}

void read_ops(const std::shared_ptr<const toml::table>& document, const toml::table& ops,
              const std::string& file, RawSections& sections) {
  for (const auto& [key, node] : ops) {
    const std::string section = "ops." + std::string(key.str());
    sections[section] = read_section(document, section_table(key, node, file, section), file);
  }
}

[[noreturn]] void unknown_section(const toml::key& key, const std::string& file) {
  const std::string name(key.str());
  fail(position(file, key.source().begin),
       "unknown section " + header(clipped(name)) + suggestion(name, known_sections()),
       "known sections: " + joined(known_sections()));
}

}  // namespace

std::shared_ptr<const toml::table> parse_toml(const std::string& text, const std::string& file) {
  require_shallow(text, file);
  try {
    return std::make_shared<const toml::table>(toml::parse(text, file));
  } catch (const toml::parse_error& error) {
    fail(position(file, error.source().begin), std::string(error.description()),
         "fix the TOML syntax at that place");
  }
}

RawConfig read_document(const std::shared_ptr<const toml::table>& document,
                        const std::string& file) {
  RawConfig raw;
  raw.file = file;
  for (const auto& [key, node] : *document) {
    const std::string name(key.str());
    if (std::find(known_sections().begin(), known_sections().end(), name) == known_sections().end())
      unknown_section(key, file);
    const toml::table& table = section_table(key, node, file, name);
    if (name == "sweep")
      raw.sweep = read_sweep(document, table, file);
    else if (name == "ops")
      read_ops(document, table, file, raw.sections);
    else
      raw.sections[name] = read_section(document, table, file);
  }
  return raw;
}

}  // namespace runner::config
