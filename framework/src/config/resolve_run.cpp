// Resolving one run: host sections, the chosen components, [ops.*] and [[dataset.augment]].
#include "config/resolve_run.hpp"

#include <optional>

#include "common/clipped_text.hpp"
#include "config/error_text.hpp"
#include "config/resolve_augment.hpp"
#include "config/sections.hpp"
#include "config/validate.hpp"

namespace runner::config {
namespace {

// The section as given, or an empty one placed at the top of the file.
RawSection section_or_empty(const RawSections& sections, const std::string& name,
                            const std::string& file) {
  auto it = sections.find(name);
  if (it != sections.end()) return it->second;
  return RawSection{file_start(file), {}};
}

Options resolve_host_section(const RawSections& sections, const std::string& name,
                             const std::string& file) {
  return validate_section(name, section_or_empty(sections, name, file), *host_schema(name));
}

// "datasets", "strategies".
std::string plural(Kind kind) {
  const std::string name = kind_name(kind);
  return name.back() == 'y' ? name.substr(0, name.size() - 1) + "ies" : name + "s";
}

std::string known_components_hint(Kind kind, const std::vector<std::string>& names) {
  if (names.empty()) return "no " + plural(kind) + " are installed; check [experiment] plugin_path";
  return "known " + plural(kind) + ": " + joined(names);
}

const Schema& component_schema(Kind kind, const std::string& name, const std::string& where,
                               const SchemaSource& schemas) {
  if (const Schema* schema = schemas.schema(kind, name)) return *schema;
  const std::vector<std::string> names = schemas.names(kind);
  fail(where,
       std::string("unknown ") + kind_name(kind) + " '" + clipped(name) + "'" +
           suggestion(name, names),
       known_components_hint(kind, names) + "; a " + kind_name(kind) +
           " of a plugin not installed here: add its folder with --plugin-path DIR or "
           "RUNNER_PLUGIN_PATH");
}

std::string component_name(const std::string& section, const RawSection& raw,
                           const std::optional<std::string>& default_name, Kind kind,
                           const SchemaSource& schemas) {
  auto it = raw.values.find("name");
  if (it == raw.values.end()) {
    if (default_name) return *default_name;
    fail(raw.where, header(section) + " needs a name",
         "add name = \"...\" to " + header(section) + "; " +
             known_components_hint(kind, schemas.names(kind)));
  }
  static const Schema schema = Schema().text("name", std::nullopt, "The plugin component");
  return std::get<std::string>(checked_value(it->second, section + ".name", *schema.find("name")));
}

// [dataset], [model] and [strategy]: `name` picks the component, its schema the other keys.
ComponentConfig resolve_component(const RawSections& sections, const std::string& section,
                                  Kind kind, const std::optional<std::string>& default_name,
                                  const std::string& file, const SchemaSource& schemas) {
  auto it = sections.find(section);
  if (it == sections.end() && !default_name)
    fail(file_start(file), "missing section " + header(section),
         "add " + header(section) + " with a name; " +
             known_components_hint(kind, schemas.names(kind)));
  const RawSection raw = section_or_empty(sections, section, file);
  const std::string name = component_name(section, raw, default_name, kind, schemas);
  auto name_value = raw.values.find("name");
  const std::string& where = name_value != raw.values.end() ? name_value->second.where : raw.where;
  const Schema& schema = component_schema(kind, name, where, schemas);
  return ComponentConfig{name, validate_section(section, raw, schema, {"name"})};
}

// [ops.NAME]: the table's name is the op's.
Options resolve_op(const std::string& section, const RawSection& raw, const SchemaSource& schemas) {
  const std::string op = op_of_section(section);
  return validate_section(section, raw, component_schema(Kind::op, op, raw.where, schemas));
}

// [[dataset.augment]] belongs to the host, so the dataset's schema never sees it.
std::vector<AugmentConfig> take_dataset_augment(RawSections& sections, const std::string& file) {
  auto dataset = sections.find("dataset");
  return dataset == sections.end() ? std::vector<AugmentConfig>{}
                                   : take_augment(dataset->second, file);
}

}  // namespace

RunConfig resolve_run(const RawSections& given, const std::string& file,
                      const SchemaSource& schemas) {
  RawSections sections = given;
  RunConfig run;
  run.augment = take_dataset_augment(sections, file);
  run.experiment = resolve_host_section(sections, "experiment", file);
  run.train = train_settings_of(resolve_host_section(sections, "train", file));
  run.optimizer = resolve_host_section(sections, "optimizer", file);
  run.schedule = resolve_host_section(sections, "schedule", file);
  run.checkpoint = resolve_host_section(sections, "checkpoint", file);
  run.fault = resolve_host_section(sections, "fault", file);
  run.dataset = resolve_component(sections, "dataset", Kind::dataset, std::nullopt, file, schemas);
  run.model = resolve_component(sections, "model", Kind::model, std::nullopt, file, schemas);
  run.strategy = resolve_component(sections, "strategy", Kind::strategy, "single", file, schemas);
  for (const auto& [name, raw] : sections)
    if (is_op_section(name)) run.ops[op_of_section(name)] = resolve_op(name, raw, schemas);
  return run;
}

}  // namespace runner::config
