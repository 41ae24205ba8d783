// Converting TOML nodes to schema-typed Values, and describing a node's type for errors.
#include "config/toml_values.hpp"

#include <optional>
#include <sstream>

#include "common/clipped_text.hpp"
#include "config/error_text.hpp"
#include "config/key_help.hpp"

namespace runner::config {
namespace {

// Each element converter yields nullopt when the node has the wrong type.
std::optional<int64_t> as_integer(const toml::node& node) {
  if (const auto* v = node.as_integer()) return v->get();
  return std::nullopt;
}

std::optional<double> as_number(const toml::node& node) {
  if (const auto* v = node.as_floating_point()) return v->get();
  if (const auto* v = node.as_integer()) return static_cast<double>(v->get());
  return std::nullopt;
}

std::optional<std::string> as_string(const toml::node& node) {
  if (const auto* v = node.as_string()) return v->get();
  return std::nullopt;
}

std::optional<bool> as_bool(const toml::node& node) {
  if (const auto* v = node.as_boolean()) return v->get();
  return std::nullopt;
}

template <typename T, typename Convert>
std::optional<std::vector<T>> as_list(const toml::node& node, Convert convert) {
  const auto* array = node.as_array();
  if (!array) return std::nullopt;
  std::vector<T> out;
  for (const auto& element : *array) {
    std::optional<T> v = convert(element);
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

template <typename T>
std::optional<Value> as_value(std::optional<T> v) {
  if (!v) return std::nullopt;
  return Value(std::move(*v));
}

std::optional<Value> convert(const toml::node& node, KeyType type) {
  switch (type) {
    case KeyType::boolean: return as_value(as_bool(node));
    case KeyType::integer: return as_value(as_integer(node));
    case KeyType::number: return as_value(as_number(node));
    case KeyType::string: return as_value(as_string(node));
    case KeyType::integer_list: return as_value(as_list<int64_t>(node, as_integer));
    case KeyType::number_list: return as_value(as_list<double>(node, as_number));
    case KeyType::string_list: return as_value(as_list<std::string>(node, as_string));
  }
  return std::nullopt;
}

std::string given_text(const RawValue& raw) {
  if (raw.raw_text)
    return "'" + clipped(raw.node->as_string()->get()) + "', which is not a TOML value";
  return describe_node(*raw.node);
}

}  // namespace

Value to_value(const RawValue& raw, const std::string& dotted, const KeySpec& spec) {
  if (std::optional<Value> v = convert(*raw.node, spec.type)) return *v;
  std::string hint = key_help(dotted, spec);
  if (spec.type == KeyType::string && raw.where.rfind("--set", 0) == 0)
    hint += " (quote a string that reads as another TOML value: --set '" + dotted + "=\"...\"')";
  fail(raw.where, dotted + " must be " + with_article(spec.type) + ", not " + given_text(raw),
       hint);
}

std::string describe_node(const toml::node& node) {
  if (const auto* v = node.as_boolean())
    return std::string("bool ") + (v->get() ? "true" : "false");
  if (const auto* v = node.as_integer()) return "integer " + std::to_string(v->get());
  if (const auto* v = node.as_floating_point()) return "float " + value_to_string(Value(v->get()));
  if (const auto* v = node.as_string()) return "string " + quoted_value(Value(v->get()));
  if (node.is_table()) return "a table";
  std::ostringstream text;
  if (const auto* array = node.as_array()) {
    text << *array;
    return "array " + clipped(text.str());
  } else {
    text << "date/time ";
    node.visit([&](const auto& value) { text << value; });
  }
  return text.str();
}

}  // namespace runner::config
