// A key's type, range and choices written out in words for an error's hint.
#include "config/key_help.hpp"

#include <sstream>

#include "config/error_text.hpp"

namespace runner::config {

std::string bound_text(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

std::string range_text(const KeySpec& spec) {
  if (spec.min && spec.max)
    return "between " + bound_text(*spec.min) + " and " + bound_text(*spec.max);
  if (spec.min) return "at least " + bound_text(*spec.min);
  if (spec.max) return "at most " + bound_text(*spec.max);
  return "";
}

std::string with_article(KeyType type) {
  std::string name = key_type_name(type);
  return (name[0] == 'i' ? "an " : "a ") + name;
}

std::string key_help(const std::string& dotted, const KeySpec& spec) {
  std::string facts = key_type_name(spec.type);
  if (!spec.choices.empty()) facts += ", one of " + joined(spec.choices);
  if (std::string range = range_text(spec); !range.empty()) facts += ", " + range;
  facts += spec.default_value ? ", default " + value_to_string(*spec.default_value) : ", required";
  return dotted + " (" + facts + "): " + spec.doc;
}

}  // namespace runner::config
