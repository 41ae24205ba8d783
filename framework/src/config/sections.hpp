// The sections an experiment file may have, who owns each, and how a dotted key
// ("train.batch_size", "ops.gelu.approximate") names a section and a key.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runner/kind.hpp"
#include "runner/options.hpp"

namespace runner::config {

struct DottedKey {
  std::string section;  // "train", "ops.gelu"
  std::string key;      // "batch_size", "approximate"
  std::string text() const { return section + "." + key; }
};

// nullopt unless `dotted` is "section.key" or "ops.NAME.key" with no empty part.
std::optional<DottedKey> split_dotted_key(const std::string& dotted);

// The top-level tables a file may hold: experiment, train, ..., ops, sweep.
const std::vector<std::string>& known_sections();
// True for the sections that hold run settings, "ops.NAME" included ("sweep" is not one).
bool is_settings_section(const std::string& section);
// The host's schema of experiment, train, optimizer or schedule; nullptr for the others.
const Schema* host_schema(const std::string& section);

// "dataset.augment" and the keys under it ("dataset.augment.degrees", "dataset.augment[0]"):
// a list of tables, which neither --set nor [sweep] can change.
bool is_augment_key(const std::string& dotted);

// "ops.gelu" is the section of op "gelu".
bool is_op_section(const std::string& section);
std::string op_of_section(const std::string& section);

// "[train]", "[ops.gelu]".
std::string header(const std::string& section);

}  // namespace runner::config
