// The experiment as read, before any schema applies: each value is still a TOML node that
// remembers where it came from (a place in the file or a --set), so that the validation, which
// can only happen once the component names are known, still points at the right place.
#pragma once

#include <toml++/toml.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace runner::config {

struct RawValue {
  std::shared_ptr<const toml::node> node;  // shares ownership of the document it lives in
  std::string where;                       // "file:line:column" of its key, or "--set key=value"
  bool raw_text = false;                   // a --set value that is not TOML, kept as a string
  // "sweep point 2 (strategy=single)" when a sweep point that picks its own component or table
  // for this value's section keeps this value of the section's: the point may lack the key.
  std::string inherited_by;
};

struct RawSection {
  std::string where;                       // its header, or the top of the file when absent there
  std::map<std::string, RawValue> values;  // key (without the section) -> value
};

// Section name ("train", "model", "ops.gelu") -> its values.
using RawSections = std::map<std::string, RawSection>;

struct SweepAxis {
  std::string key;    // dotted, e.g. "train.batch_size"
  std::string where;  // the key's place in [sweep]
  std::vector<RawValue> values;
};

struct SweepSpec {
  std::string where;            // the [sweep] header
  std::vector<SweepAxis> axes;  // in file order
  bool zip = false;             // pair the lists instead of taking their product
  int64_t max_points = 10000;   // [sweep] max_points: the most runs it may expand to
};

struct RawConfig {
  std::string file;
  RawSections sections;
  SweepSpec sweep;
};

// A node of `document` that keeps the whole document alive.
inline std::shared_ptr<const toml::node> node_in(const std::shared_ptr<const toml::table>& document,
                                                 const toml::node& node) {
  return std::shared_ptr<const toml::node>(document, &node);
}

}  // namespace runner::config
