// Applying --set overrides: parsing key and value, refusing swept keys, replacing raw values.
#include "config/overrides.hpp"

#include <optional>

#include "common/clipped_text.hpp"
#include "config/error_text.hpp"
#include "config/nesting.hpp"
#include "config/sections.hpp"
#include "config/sweep.hpp"

namespace runner::config {
namespace {

const std::string kOverrideHint = "write --set section.key=value, e.g. --set train.batch_size=128";

std::string trimmed(const std::string& text) {
  const char* space = " \t";
  const size_t first = text.find_first_not_of(space);
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(space) - first + 1);
}

DottedKey override_key(const std::string& key_text, const std::string& where) {
  if (is_augment_key(key_text))
    fail(where, "augmentation lists cannot be set with --set",
         "edit the [[dataset.augment]] tables in the file");
  std::optional<DottedKey> key = split_dotted_key(key_text);
  if (!key)
    fail(where, "'" + clipped(key_text) + "' is not a dotted key section.key", kOverrideHint);
  if (key->section == "sweep")
    fail(where, "[sweep] cannot be changed with --set", "edit the sweep in the file");
  if (!is_settings_section(key->section)) {
    const std::string first = key_text.substr(0, key_text.find('.'));
    fail(where, "unknown section " + header(clipped(first)) + suggestion(first, known_sections()),
         "known sections: " + joined(known_sections()));
  }
  return *key;
}

// The value as TOML ("v = <text>"); text that is no TOML value becomes a string, so that
// --set model.activation=tanh needs no quotes. The schema decides later whether a string fits.
RawValue override_value(const std::string& text, const std::string& where) {
  require_shallow("v = " + text, where, false);
  auto document = std::make_shared<toml::table>();
  try {
    *document = toml::parse("v = " + text);
  } catch (const toml::parse_error&) {
    document->clear();
  }
  const bool is_toml = document->size() == 1 && document->contains("v");
  if (!is_toml) {
    document->clear();
    document->insert("v", text);
  }
  std::shared_ptr<const toml::table> keep = document;
  return RawValue{node_in(keep, *keep->get("v")), where, !is_toml};
}

void check_not_swept(const DottedKey& key, const SweepSpec& sweep, const std::string& where) {
  for (const auto& axis : sweep.axes)
    if (axis.key == key.text() || (axis.key == key.section && section_axis_sets(axis, key.key)))
      fail(where, "conflicts with [sweep] " + axis.key + " at " + axis.where,
           "drop the --set, or change the sweep list in the file");
}

}  // namespace

void apply_overrides(RawConfig& raw, const std::vector<std::string>& overrides) {
  for (const auto& text : overrides) {
    const std::string where = "--set " + clipped(text);
    const size_t equals = text.find('=');
    if (equals == std::string::npos) fail(where, "expected key=value", kOverrideHint);
    const DottedKey key = override_key(trimmed(text.substr(0, equals)), where);
    check_not_swept(key, raw.sweep, where);
    RawSection& section = raw.sections[key.section];
    if (section.where.empty()) section.where = where;
    section.values[key.key] = override_value(trimmed(text.substr(equals + 1)), where);
  }
}

}  // namespace runner::config
