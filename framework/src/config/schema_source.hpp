// Where the schemas an experiment is validated against come from: the plugin registry, or a
// test's table.
#pragma once

#include <string>
#include <vector>

#include "runner/kind.hpp"
#include "runner/options.hpp"

namespace runner::config {

class SchemaSource {
 public:
  virtual ~SchemaSource() = default;
  // nullptr when no component of that kind and name is installed.
  virtual const Schema* schema(Kind kind, const std::string& name) const = 0;
  virtual std::vector<std::string> names(Kind kind) const = 0;
};

}  // namespace runner::config
