// The pipeline: parse -> read sections and sweep -> apply --set -> per sweep point, substitute
// and validate -> name, label, resolved text and id of each run.
#include "config/load_experiment.hpp"

#include <cctype>
#include <filesystem>

#include "common/clipped_text.hpp"
#include "config/error_text.hpp"
#include "config/experiment_file.hpp"
#include "config/overrides.hpp"
#include "config/read_document.hpp"
#include "config/resolve_run.hpp"
#include "config/resolved_toml.hpp"
#include "config/sections.hpp"
#include "config/sweep.hpp"

namespace runner::config {
namespace {

bool is_plain_name(const std::string& name) {
  if (name.empty()) return false;
  for (unsigned char c : name)
    if (!std::isalnum(c) && c != '_' && c != '.' && c != '-') return false;
  return true;
}

const std::string kNameHint = "use letters, digits, '_', '.' and '-' only";

// [experiment] name, or the file's stem when the name is empty.
std::string experiment_name(const RawConfig& raw, const Options& experiment) {
  const std::string& given = experiment.get_string("name");
  if (!given.empty()) {
    if (!is_plain_name(given))
      fail(raw.sections.at("experiment").values.at("name").where,
           "experiment.name = " + quoted_value(Value(given)) + " is not a plain name", kNameHint);
    return given;
  }
  const std::string stem = std::filesystem::path(raw.file).stem().string();
  if (!is_plain_name(stem))
    fail(file_start(raw.file), "the file's name '" + stem + "' is no plain experiment name",
         "set [experiment] name; " + kNameHint);
  return stem;
}

// The resolved value of a dotted key in `run`, a component's name included.
Value value_in(const RunConfig& run, const std::string& dotted) {
  const DottedKey key = *split_dotted_key(dotted);
  const std::map<std::string, const ComponentConfig*> components = {
      {"dataset", &run.dataset}, {"model", &run.model}, {"strategy", &run.strategy}};
  if (auto it = components.find(key.section); it != components.end())
    return key.key == "name" ? Value(it->second->name) : it->second->options.get(key.key);
  if (key.section == "experiment") return run.experiment.get(key.key);
  if (key.section == "train") return run.train.keys.get(key.key);
  if (key.section == "optimizer") return run.optimizer.get(key.key);
  if (key.section == "schedule") return run.schedule.get(key.key);
  if (key.section == "checkpoint") return run.checkpoint.get(key.key);
  if (key.section == "fault") return run.fault.get(key.key);
  return run.ops.at(op_of_section(key.section)).get(key.key);
}

std::string label_of(const std::vector<std::pair<std::string, Value>>& point) {
  std::string label;
  for (const auto& [key, value] : point) {
    const auto* text = std::get_if<std::string>(&value);
    label += (label.empty() ? "" : " ") + key + "=" + (text ? *text : value_to_string(value));
  }
  return label;
}

// Two runs with one config would share an id, and so a place in the results file.
void check_distinct_runs(const std::vector<RunConfig>& runs, const SweepSpec& sweep) {
  for (size_t i = 0; i < runs.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (runs[i].id == runs[j].id)
        fail(sweep.where,
             "[sweep] makes runs " + std::to_string(j + 1) + " (" + clipped(runs[j].label) +
                 ") and " + std::to_string(i + 1) + " (" + clipped(runs[i].label) + ") the same",
             "remove the repeated values from the sweep lists");
}

// `number` counts the sweep's points from 1.
RunConfig run_at(const RawConfig& raw, const std::vector<size_t>& point, size_t number,
                 const SchemaSource& schemas) {
  RunConfig run = resolve_run(sections_at(raw, point, number), raw.file, schemas);
  for (size_t i = 0; i < point.size(); ++i) {
    const SweepAxis& axis = raw.sweep.axes[i];
    run.sweep_point.emplace_back(axis.key, is_section_axis(axis)
                                               ? Value(section_value_text(axis.values[point[i]]))
                                               : value_in(run, axis.key));
  }
  run.label = label_of(run.sweep_point);
  return run;
}

Experiment experiment_of(const RawConfig& raw, const std::string& name,
                         const SchemaSource& schemas) {
  Experiment experiment;
  experiment.file = name;
  for (const auto& axis : raw.sweep.axes) experiment.swept_keys.push_back(axis.key);
  for (const auto& point : sweep_points(raw.sweep))
    experiment.runs.push_back(run_at(raw, point, experiment.runs.size() + 1, schemas));

  experiment.name = experiment_name(raw, experiment.runs.front().experiment);
  for (auto& run : experiment.runs) {
    run.experiment.set("name", experiment.name);
    run.resolved_toml = resolved_toml(run);
    run.id = run_id(id_text(run));
    run.earlier_id = run_id(earlier_id_text(run));
  }
  check_distinct_runs(experiment.runs, raw.sweep);
  return experiment;
}

// The [strategy] keys `strategy` declares; the others go.
void keep_declared_strategy_keys(RawConfig& raw, const std::string& strategy,
                                 const SchemaSource& schemas) {
  auto section = raw.sections.find("strategy");
  const Schema* schema = schemas.schema(Kind::strategy, strategy);
  if (section == raw.sections.end() || schema == nullptr) return;
  auto& values = section->second.values;
  for (auto it = values.begin(); it != values.end();)
    it = it->first == "name" || schema->find(it->first) ? std::next(it) : values.erase(it);
}

}  // namespace

Experiment parse_experiment(const std::string& text, const std::string& name,
                            const std::vector<std::string>& overrides,
                            const SchemaSource& schemas) {
  RawConfig raw = read_document(parse_toml(text, name), name);
  apply_overrides(raw, overrides);
  return experiment_of(raw, name, schemas);
}

Experiment parse_with_strategy(const std::string& text, const std::string& name,
                               const std::vector<std::string>& overrides,
                               const std::string& strategy,
                               const std::vector<std::string>& strategy_overrides,
                               const SchemaSource& schemas) {
  RawConfig raw = read_document(parse_toml(text, name), name);
  apply_overrides(raw, overrides);
  keep_declared_strategy_keys(raw, strategy, schemas);
  std::vector<std::string> layout{"strategy.name=\"" + strategy + "\""};
  layout.insert(layout.end(), strategy_overrides.begin(), strategy_overrides.end());
  apply_overrides(raw, layout);
  return experiment_of(raw, name, schemas);
}

Experiment load_experiment(const std::string& path, const std::vector<std::string>& overrides,
                           const SchemaSource& schemas) {
  return parse_experiment(read_experiment_file(path), path, overrides, schemas);
}

}  // namespace runner::config
