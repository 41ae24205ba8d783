// Checking one section against its schema: typed values, bounds, choices, unknown and missing keys.
#include "config/validate.hpp"

#include <algorithm>
#include <cmath>

#include "common/clipped_text.hpp"
#include "config/error_text.hpp"
#include "config/key_help.hpp"
#include "config/sections.hpp"
#include "config/toml_values.hpp"

namespace runner::config {
namespace {

// `element` is the key as written in the message: "optimizer.betas[1]" for a list element.
void check_range(double v, const std::string& value_text, const std::string& element,
                 const RawValue& raw, const std::string& dotted, const KeySpec& spec) {
  // No key means anything by an infinity, and one reaches training as a NaN loss.
  if (std::isinf(v))
    fail(raw.where, element + " = " + value_text + " is not a finite number",
         key_help(dotted, spec));
  // Written as !(in range) so that a NaN is out of range too.
  bool below = spec.min && !(v >= *spec.min);
  bool above = spec.max && !(v <= *spec.max);
  if (below || above)
    fail(raw.where,
         element + " = " + value_text + " is out of range: it must be " + range_text(spec),
         key_help(dotted, spec));
}

template <typename T>
void check_list_range(const std::vector<T>& items, const RawValue& raw, const std::string& dotted,
                      const KeySpec& spec) {
  for (size_t i = 0; i < items.size(); ++i)
    check_range(static_cast<double>(items[i]), value_to_string(Value(items[i])),
                dotted + "[" + std::to_string(i) + "]", raw, dotted, spec);
}

void check_bounds(const Value& value, const RawValue& raw, const std::string& dotted,
                  const KeySpec& spec) {
  if (const auto* i = std::get_if<int64_t>(&value))
    check_range(static_cast<double>(*i), std::to_string(*i), dotted, raw, dotted, spec);
  if (const auto* d = std::get_if<double>(&value))
    check_range(*d, value_to_string(value), dotted, raw, dotted, spec);
  if (const auto* is = std::get_if<std::vector<int64_t>>(&value))
    check_list_range(*is, raw, dotted, spec);
  if (const auto* ds = std::get_if<std::vector<double>>(&value))
    check_list_range(*ds, raw, dotted, spec);
}

// `element` is the key as written in the message, as in check_range.
void check_choice(const std::string& text, const std::string& element, const RawValue& raw,
                  const KeySpec& spec) {
  if (std::find(spec.choices.begin(), spec.choices.end(), text) != spec.choices.end()) return;
  fail(raw.where,
       element + " = " + quoted_value(Value(text)) + " is not one of " + joined(spec.choices) +
           suggestion(text, spec.choices),
       "choices: " + joined(spec.choices));
}

void check_choices(const Value& value, const RawValue& raw, const std::string& dotted,
                   const KeySpec& spec) {
  if (spec.choices.empty()) return;
  if (const auto* s = std::get_if<std::string>(&value)) check_choice(*s, dotted, raw, spec);
  if (const auto* ss = std::get_if<std::vector<std::string>>(&value))
    for (size_t i = 0; i < ss->size(); ++i)
      check_choice((*ss)[i], dotted + "[" + std::to_string(i) + "]", raw, spec);
}

// A key inherited from its section by a sweep point names the point, and how to give the key
// to only the points that take it.
[[noreturn]] void unknown_key(const std::string& section, const std::string& key,
                              const RawValue& value, const std::vector<std::string>& known) {
  std::string what = "unknown key " + section + "." + clipped(key);
  std::string hint = "known keys: " + joined(known);
  if (!value.inherited_by.empty()) {
    what += ", inherited from " + header(section) + " by " + value.inherited_by;
    hint += "; to give a key to some sweep points only, sweep the section whole: \"" + section +
            "\" = [{name = \"a\", key = 1}, {name = \"b\"}]";
  }
  fail(value.where, what + suggestion(key, known), hint);
}

bool contains(const std::vector<std::string>& items, const std::string& item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

}  // namespace

Value checked_value(const RawValue& raw, const std::string& dotted, const KeySpec& spec) {
  Value value = to_value(raw, dotted, spec);
  check_bounds(value, raw, dotted, spec);
  check_choices(value, raw, dotted, spec);
  return value;
}

Options validate_section(const std::string& section, const RawSection& raw, const Schema& schema,
                         const std::vector<std::string>& handled_keys) {
  std::vector<std::string> known = handled_keys;
  for (const auto& name : schema.names()) known.push_back(name);

  Options options(section);
  for (const auto& [key, value] : raw.values) {
    if (contains(handled_keys, key)) continue;
    const std::string dotted = section + "." + key;
    const KeySpec* spec = schema.find(key);
    if (!spec) unknown_key(section, key, value, known);
    options.set(key, checked_value(value, dotted, *spec));
  }
  for (const auto& spec : schema.keys()) {
    if (options.has(spec.name)) continue;
    const std::string dotted = section + "." + spec.name;
    if (!spec.default_value)
      fail(raw.where, "missing required key " + dotted,
           "add it to " + header(section) + ": " + key_help(dotted, spec));
    options.set(spec.name, *spec.default_value);
  }
  return options;
}

}  // namespace runner::config
