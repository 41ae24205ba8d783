// An experiment file, resolved: TOML parsed, --set overrides applied, the [sweep] expanded,
// and every table validated against the schema of its owner (the host or a plugin).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "runner/kind.hpp"
#include "runner/options.hpp"

namespace runner::config {

// Where the schema of a component comes from (the plugin registry, or a test's table).
class SchemaSource {
 public:
  virtual ~SchemaSource() = default;
  // nullptr when no component of that kind and name is installed.
  virtual const Schema* schema(Kind kind, const std::string& name) const = 0;
  virtual std::vector<std::string> names(Kind kind) const = 0;
};

struct ComponentConfig {
  std::string name;  // the plugin component, e.g. "mnist"
  Options options;   // its keys, defaults filled in (without "name")
};

// One table of [[dataset.augment]]: a batch transform of the host's and its keys.
struct AugmentConfig {
  std::string name;  // "random_affine", "normalize", ...
  Options options;   // its keys, defaults filled in (without "name")
};

struct RunConfig {
  // Stable: a hash of the resolved config but [checkpoint] (saving changes no result, and a
  // run resumed with other checkpoint keys is the same run), 12 hex digits.
  std::string id;
  std::string label;  // the sweep point as text, e.g. "train.batch_size=32 optimizer.lr=0.01"
  std::vector<std::pair<std::string, Value>> sweep_point;  // dotted key -> value, in sweep order
  Options experiment;  // [experiment], its name resolved as Experiment::name
  Options train;       // [train]
  Options optimizer;   // [optimizer]
  Options schedule;    // [schedule]
  Options checkpoint;  // [checkpoint]: when and where the run saves its state
  ComponentConfig dataset;
  std::vector<AugmentConfig> augment;  // [[dataset.augment]], in file order
  ComponentConfig model;
  ComponentConfig strategy;            // name defaults to "single"
  std::map<std::string, Options> ops;  // [ops.NAME], for every op named there
  std::string resolved_toml;           // the whole resolved config as TOML text
};

struct Experiment {
  std::string name;                     // [experiment] name, or the file's stem
  std::string file;                     // the path it was read from
  std::vector<std::string> swept_keys;  // dotted keys of [sweep], in file order
  std::vector<RunConfig> runs;          // one without a [sweep]
};

// Reads `path`, applies `overrides` ("dotted.key=value", typed by the schema, later ones win),
// expands the sweep and validates each run. Throws ConfigError naming file:line:column, the
// key, the known keys and a "did you mean" when one is close.
Experiment load_experiment(const std::string& path, const std::vector<std::string>& overrides,
                           const SchemaSource& schemas);

// The same, from text; `name` stands for the file in messages.
Experiment parse_experiment(const std::string& text, const std::string& name,
                            const std::vector<std::string>& overrides, const SchemaSource& schemas);

// The same with its [strategy] replaced, as a layout search tries one: `strategy` with
// `strategy_overrides` ("strategy.stage=2"), applied after `overrides`. Of the file's
// [strategy] keys only those `strategy` declares stay (backend, timeout_s): another
// strategy's keys would be unknown to it.
Experiment parse_with_strategy(const std::string& text, const std::string& name,
                               const std::vector<std::string>& overrides,
                               const std::string& strategy,
                               const std::vector<std::string>& strategy_overrides,
                               const SchemaSource& schemas);

}  // namespace runner::config
