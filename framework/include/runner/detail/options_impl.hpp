// Inline definitions for options.hpp: the SDK is header-only so that an out-of-tree plugin
// needs nothing but these headers and LibTorch.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdio>

namespace runner {

inline const char* key_type_name(KeyType type) {
  switch (type) {
    case KeyType::boolean: return "bool";
    case KeyType::integer: return "integer";
    case KeyType::number: return "float";
    case KeyType::string: return "string";
    case KeyType::integer_list: return "list of integers";
    case KeyType::number_list: return "list of floats";
    case KeyType::string_list: return "list of strings";
  }
  return "?";
}

inline KeyType value_type(const Value& value) { return static_cast<KeyType>(value.index()); }

namespace detail {
// The shortest text that reads back as the same double (0.1, not 0.10000000000000001).
inline std::string number_text(double v) {
  char buffer[32];
  auto end = std::to_chars(buffer, buffer + sizeof buffer, v).ptr;
  std::string s(buffer, end);
  if (s.find_first_of(".eEni") == std::string::npos) s += ".0";
  return s;
}
// A TOML basic string: quotes, backslashes and control characters escaped.
inline std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned char>(c));
      out += escape;
    } else {
      out += c;
    }
  }
  return out + "\"";
}
template <typename T, typename F>
std::string list_text(const std::vector<T>& items, F element) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + element(items[i]);
  return out + "]";
}
}  // namespace detail

inline std::string value_to_string(const Value& value) {
  switch (value_type(value)) {
    case KeyType::boolean: return std::get<bool>(value) ? "true" : "false";
    case KeyType::integer: return std::to_string(std::get<int64_t>(value));
    case KeyType::number: return detail::number_text(std::get<double>(value));
    case KeyType::string: return detail::quoted(std::get<std::string>(value));
    case KeyType::integer_list:
      return detail::list_text(std::get<std::vector<int64_t>>(value),
                               [](int64_t v) { return std::to_string(v); });
    case KeyType::number_list:
      return detail::list_text(std::get<std::vector<double>>(value), detail::number_text);
    case KeyType::string_list:
      return detail::list_text(std::get<std::vector<std::string>>(value), detail::quoted);
  }
  return "?";
}

inline Schema& Schema::add(KeySpec spec) {
  auto same = [&](const KeySpec& k) { return k.name == spec.name; };
  auto it = std::find_if(keys_.begin(), keys_.end(), same);
  if (it != keys_.end())
    *it = std::move(spec);
  else
    keys_.push_back(std::move(spec));
  return *this;
}

inline Schema& Schema::flag(const std::string& name, bool def, const std::string& doc) {
  return add({name, KeyType::boolean, Value(def), doc, {}, {}, {}});
}

inline Schema& Schema::integer(const std::string& name, std::optional<int64_t> def,
                               const std::string& doc, std::optional<double> min,
                               std::optional<double> max) {
  std::optional<Value> d;
  if (def) d = Value(*def);
  return add({name, KeyType::integer, d, doc, min, max, {}});
}

inline Schema& Schema::number(const std::string& name, std::optional<double> def,
                              const std::string& doc, std::optional<double> min,
                              std::optional<double> max) {
  std::optional<Value> d;
  if (def) d = Value(*def);
  return add({name, KeyType::number, d, doc, min, max, {}});
}

inline Schema& Schema::text(const std::string& name, std::optional<std::string> def,
                            const std::string& doc, std::vector<std::string> choices) {
  std::optional<Value> d;
  if (def) d = Value(*def);
  return add({name, KeyType::string, d, doc, {}, {}, std::move(choices)});
}

inline Schema& Schema::integers(const std::string& name, std::optional<std::vector<int64_t>> def,
                                const std::string& doc, std::optional<double> min,
                                std::optional<double> max) {
  std::optional<Value> d;
  if (def) d = Value(std::move(*def));
  return add({name, KeyType::integer_list, d, doc, min, max, {}});
}

inline Schema& Schema::numbers(const std::string& name, std::optional<std::vector<double>> def,
                               const std::string& doc, std::optional<double> min,
                               std::optional<double> max) {
  std::optional<Value> d;
  if (def) d = Value(std::move(*def));
  return add({name, KeyType::number_list, d, doc, min, max, {}});
}

inline Schema& Schema::texts(const std::string& name, std::optional<std::vector<std::string>> def,
                             const std::string& doc, std::vector<std::string> choices) {
  std::optional<Value> d;
  if (def) d = Value(std::move(*def));
  return add({name, KeyType::string_list, d, doc, {}, {}, std::move(choices)});
}

inline const KeySpec* Schema::find(const std::string& name) const {
  for (const auto& k : keys_)
    if (k.name == name) return &k;
  return nullptr;
}

inline std::vector<std::string> Schema::names() const {
  std::vector<std::string> out;
  for (const auto& k : keys_) out.push_back(k.name);
  return out;
}

inline const Value& Options::get(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end())
    throw ConfigError("[" + section_ + "] has no value for '" + key + "'",
                      "the component asked for a key its schema does not declare");
  return it->second;
}

template <typename T>
const T& Options::typed(const std::string& key, const char* wanted) const {
  const Value& v = get(key);
  if (const T* p = std::get_if<T>(&v)) return *p;
  throw ConfigError("[" + section_ + "] " + key + " is a " + key_type_name(value_type(v)) +
                    ", not a " + wanted);
}

inline bool Options::get_bool(const std::string& key) const { return typed<bool>(key, "bool"); }
inline int64_t Options::get_int(const std::string& key) const {
  return typed<int64_t>(key, "integer");
}
inline double Options::get_double(const std::string& key) const {
  const Value& v = get(key);
  if (const int64_t* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  return typed<double>(key, "float");
}
inline const std::string& Options::get_string(const std::string& key) const {
  return typed<std::string>(key, "string");
}
inline std::vector<int64_t> Options::get_ints(const std::string& key) const {
  return typed<std::vector<int64_t>>(key, "list of integers");
}
inline std::vector<double> Options::get_doubles(const std::string& key) const {
  const Value& v = get(key);
  if (const auto* ints = std::get_if<std::vector<int64_t>>(&v))
    return std::vector<double>(ints->begin(), ints->end());
  return typed<std::vector<double>>(key, "list of floats");
}
inline const std::vector<std::string>& Options::get_strings(const std::string& key) const {
  return typed<std::vector<std::string>>(key, "list of strings");
}

}  // namespace runner
