// Keys a component declares (its schema) and the values a run resolved for them (its options).
// The host validates every TOML table against the schema of whoever owns it before any
// component sees its options, so a getter here only fails on a programming error.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "runner/errors.hpp"

namespace runner {

enum class KeyType { boolean, integer, number, string, integer_list, number_list, string_list };

using Value = std::variant<bool, int64_t, double, std::string, std::vector<int64_t>,
                           std::vector<double>, std::vector<std::string>>;

const char* key_type_name(KeyType type);
KeyType value_type(const Value& value);
// TOML-like text of a value: 3, 0.5, "adam", [1, 2].
std::string value_to_string(const Value& value);

struct KeySpec {
  std::string name;
  KeyType type = KeyType::string;
  std::optional<Value> default_value;  // absent: the key is required
  std::string doc;
  std::optional<double> min;  // numbers and integers (each element of a list)
  std::optional<double> max;
  std::vector<std::string> choices;  // strings: the allowed values, when not empty
};

class Schema {
 public:
  Schema() = default;
  explicit Schema(std::vector<KeySpec> keys) : keys_(std::move(keys)) {}

  Schema& add(KeySpec spec);
  // Shorthands for the common cases.
  Schema& flag(const std::string& name, bool def, const std::string& doc);
  Schema& integer(const std::string& name, std::optional<int64_t> def, const std::string& doc,
                  std::optional<double> min = std::nullopt,
                  std::optional<double> max = std::nullopt);
  Schema& number(const std::string& name, std::optional<double> def, const std::string& doc,
                 std::optional<double> min = std::nullopt,
                 std::optional<double> max = std::nullopt);
  Schema& text(const std::string& name, std::optional<std::string> def, const std::string& doc,
               std::vector<std::string> choices = {});
  // Lists (`hidden = [128, 64]`): the range or the choices apply to each element.
  Schema& integers(const std::string& name, std::optional<std::vector<int64_t>> def,
                   const std::string& doc, std::optional<double> min = std::nullopt,
                   std::optional<double> max = std::nullopt);
  Schema& numbers(const std::string& name, std::optional<std::vector<double>> def,
                  const std::string& doc, std::optional<double> min = std::nullopt,
                  std::optional<double> max = std::nullopt);
  Schema& texts(const std::string& name, std::optional<std::vector<std::string>> def,
                const std::string& doc, std::vector<std::string> choices = {});

  const std::vector<KeySpec>& keys() const { return keys_; }
  const KeySpec* find(const std::string& name) const;
  std::vector<std::string> names() const;

 private:
  std::vector<KeySpec> keys_;
};

// Resolved values of one table ("model", "optimizer", ...), defaults filled in.
class Options {
 public:
  Options() = default;
  explicit Options(std::string section) : section_(std::move(section)) {}

  void set(const std::string& key, Value value) { values_[key] = std::move(value); }
  bool has(const std::string& key) const { return values_.count(key) != 0; }
  const Value& get(const std::string& key) const;

  bool get_bool(const std::string& key) const;
  int64_t get_int(const std::string& key) const;
  double get_double(const std::string& key) const;  // an integer value converts
  const std::string& get_string(const std::string& key) const;
  std::vector<int64_t> get_ints(const std::string& key) const;
  std::vector<double> get_doubles(const std::string& key) const;
  const std::vector<std::string>& get_strings(const std::string& key) const;

  const std::string& section() const { return section_; }
  const std::map<std::string, Value>& values() const { return values_; }

 private:
  template <typename T>
  const T& typed(const std::string& key, const char* wanted) const;

  std::string section_;
  std::map<std::string, Value> values_;
};

}  // namespace runner

#include "runner/detail/options_impl.hpp"
