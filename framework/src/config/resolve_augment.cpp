// Resolving each [[dataset.augment]] table against its transform's schema and extra checks.
#include "config/resolve_augment.hpp"

#include "augment/checks.hpp"
#include "augment/schemas.hpp"
#include "common/clipped_text.hpp"
#include "config/error_text.hpp"
#include "config/toml_values.hpp"
#include "config/validate.hpp"

namespace runner::config {
namespace {

const std::string kAugmentHint =
    "write each transform as its own [[dataset.augment]] table with a name; known transforms: ";

// A node inside `owner`'s document that keeps the document alive.
std::shared_ptr<const toml::node> node_beside(const std::shared_ptr<const toml::node>& owner,
                                              const toml::node& node) {
  return std::shared_ptr<const toml::node>(owner, &node);
}

const toml::array& augment_tables(const RawValue& raw) {
  const auto* tables = raw.node->as_array();
  if (!tables || !(tables->empty() || tables->is_array_of_tables()))
    fail(raw.where,
         "dataset.augment must be an array of tables [[dataset.augment]], not " +
             describe_node(*raw.node),
         kAugmentHint + joined(augment::transform_names()));
  return *tables;
}

RawSection raw_table(const RawValue& owner, const toml::table& table, const std::string& file) {
  RawSection section{position(file, table), {}};
  for (const auto& [key, node] : table)
    section.values[std::string(key.str())] =
        RawValue{node_beside(owner.node, node), position(file, key.source().begin), false};
  return section;
}

std::string transform_name(const RawSection& table, const std::string& section) {
  auto it = table.values.find("name");
  if (it == table.values.end())
    fail(table.where, section + " needs a name", kAugmentHint + joined(augment::transform_names()));
  static const Schema schema = Schema().text("name", std::nullopt, "The batch transform");
  const std::string name =
      std::get<std::string>(checked_value(it->second, section + ".name", *schema.find("name")));
  if (!augment::transform_schema(name))
    fail(it->second.where,
         "unknown transform '" + clipped(name) + "' in " + section +
             suggestion(name, augment::transform_names()),
         "known transforms: " + joined(augment::transform_names()));
  return name;
}

void check_consistent(const AugmentConfig& config, const RawSection& table,
                      const std::string& section) {
  std::optional<augment::TransformProblem> problem =
      augment::transform_problem(config.name, config.options);
  if (!problem) return;
  auto it = table.values.find(problem->key);
  fail(it != table.values.end() ? it->second.where : table.where,
       section + "." + problem->key + " " + problem->what, problem->hint);
}

AugmentConfig resolve_transform(const RawSection& table, const std::string& section) {
  AugmentConfig config;
  config.name = transform_name(table, section);
  config.options =
      validate_section(section, table, *augment::transform_schema(config.name), {"name"});
  check_consistent(config, table, section);
  return config;
}

}  // namespace

std::vector<AugmentConfig> take_augment(RawSection& dataset, const std::string& file) {
  auto it = dataset.values.find("augment");
  if (it == dataset.values.end()) return {};
  const RawValue raw = it->second;
  dataset.values.erase(it);
  std::vector<AugmentConfig> configs;
  for (const auto& node : augment_tables(raw)) {
    const std::string section = "dataset.augment[" + std::to_string(configs.size()) + "]";
    configs.push_back(resolve_transform(raw_table(raw, *node.as_table(), file), section));
  }
  return configs;
}

}  // namespace runner::config
