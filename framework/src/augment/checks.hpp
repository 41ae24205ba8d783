// What the schema of a batch transform cannot express: list lengths, the order of a range,
// values that must be above 0. Checked when a run is resolved (with the key's place in the
// file) and again when a transform is built from its options.
#pragma once

#include <optional>
#include <string>

#include "runner/options.hpp"

namespace runner::augment {

struct TransformProblem {
  std::string key;   // the key at fault, e.g. "scale"
  std::string what;  // what is wrong, to follow the dotted key: "must be [min, max] ..."
  std::string hint;
};

// nullopt when the options of transform `name` (validated by its schema) are consistent.
std::optional<TransformProblem> transform_problem(const std::string& name, const Options& options);

}  // namespace runner::augment
