// An experiment as runner runs it: its runs, one per point of the [sweep], each holding the
// options of every table, validated (config/load_experiment.hpp makes one from a file).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "config/train_settings.hpp"
#include "runner/options.hpp"

namespace runner::config {

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
  // Stable: a hash of what the run trains (config/resolved_toml.hpp's id_text: not where its
  // outputs go, so a run resumed with other checkpoint keys or another results file is the same
  // run), 12 hex digits.
  std::string id;
  std::string label;  // the sweep point as text, e.g. "train.batch_size=32 optimizer.lr=0.01"
  std::vector<std::pair<std::string, Value>> sweep_point;  // dotted key -> value, in sweep order
  Options experiment;   // [experiment], its name resolved as Experiment::name
  TrainSettings train;  // [train]
  Options optimizer;    // [optimizer]
  Options schedule;     // [schedule]
  Options checkpoint;   // [checkpoint]: when and where the run saves its state
  Options fault;        // [fault]: a fault injected at a rank and step (kind "none": no fault)
  ComponentConfig dataset;
  std::vector<AugmentConfig> augment;  // [[dataset.augment]], in file order
  ComponentConfig model;
  ComponentConfig strategy;            // name defaults to "single"
  std::map<std::string, Options> ops;  // [ops.NAME], for every op named there
  std::string resolved_toml;           // the whole resolved config as TOML text
  // The run's id in files written while ids covered [experiment] results, table and
  // description: their records and checkpoints are this run's too.
  std::string earlier_id;
};

// Whether `id`, read from a results file or a checkpoint, is `run`'s id (or its earlier one).
inline bool is_id_of(const RunConfig& run, const std::string& id) {
  return id == run.id || id == run.earlier_id;
}

struct Experiment {
  std::string name;                     // [experiment] name, or the file's stem
  std::string file;                     // the path it was read from
  std::vector<std::string> swept_keys;  // dotted keys of [sweep], in file order
  std::vector<RunConfig> runs;          // one without a [sweep]
};

}  // namespace runner::config
