// Typed, checked reads of a launcher's environment variables.
#include "ranks/environment_reader.hpp"

#include <charconv>

#include "runner/errors.hpp"

namespace runner::ranks {

EnvironmentReader::EnvironmentReader(const EnvironmentLookup& get, std::string origin)
    : get_(get), origin_(std::move(origin)) {}

std::optional<std::string> EnvironmentReader::text(const std::string& name) const {
  const char* value = get_(name.c_str());
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

std::optional<int> EnvironmentReader::integer(const std::string& name) const {
  std::optional<std::string> value = text(name);
  if (!value) return std::nullopt;
  std::optional<int> number = parse_int(*value);
  if (!number) fail(name, quoted(*value), "is not an integer");
  return number;
}

std::string EnvironmentReader::required_text(const std::string& name,
                                             const std::string& why_required) const {
  std::optional<std::string> value = text(name);
  if (!value) throw ConfigError(name + " is not set (required since " + why_required + ")");
  return *value;
}

int EnvironmentReader::required_integer(const std::string& name,
                                        const std::string& why_required) const {
  required_text(name, why_required);
  return *integer(name);
}

void EnvironmentReader::fail(const std::string& name, const std::string& shown_value,
                             const std::string& problem, std::string hint) const {
  throw ConfigError(name + " = " + shown_value + " " + problem + " (" + origin_ + ")",
                    std::move(hint));
}

std::string quoted(const std::string& value) { return "\"" + value + "\""; }

std::optional<int> parse_int(const std::string& text) {
  int number = 0;
  const char* end = text.data() + text.size();
  auto [stop, error] = std::from_chars(text.data(), end, number);
  if (text.empty() || error != std::errc() || stop != end) return std::nullopt;
  return number;
}

}  // namespace runner::ranks
