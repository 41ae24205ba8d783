// `runner describe`: the keys of a host section, a batch transform or a plugin component.
#include "cli/describe_command.hpp"

#include <fmt/format.h>

#include <iostream>

#include "augment/schemas.hpp"
#include "cli/registry_loader.hpp"
#include "config/error_text.hpp"
#include "config/host_schemas.hpp"
#include "plugin_host/host_owned_errors.hpp"

namespace runner::cli {
namespace {

const std::vector<std::pair<std::string, const Schema& (*)()>> kHostSections = {
    {"experiment", config::experiment_schema},
    {"train", config::train_schema},
    {"optimizer", config::optimizer_schema},
    {"schedule", config::schedule_schema},
    {"checkpoint", config::checkpoint_schema},
    {"fault", config::fault_schema},
    {"sweep", config::sweep_schema}};

void print_keys(const Schema& schema) {
  if (schema.keys().empty()) std::cout << "  (no keys)\n";
  for (const auto& key : schema.keys()) {
    std::string def = key.default_value ? value_to_string(*key.default_value) : "(required)";
    std::string range;
    if (key.min || key.max)
      range = fmt::format(" range [{}, {}]", key.min ? fmt::format("{}", *key.min) : "",
                          key.max ? fmt::format("{}", *key.max) : "");
    if (!key.choices.empty()) {
      range = " one of:";
      for (const auto& c : key.choices) range += " " + c;
    }
    std::cout << fmt::format("  {:<20} {:<16} default {}{}\n      {}\n", key.name,
                             key_type_name(key.type), def, range, key.doc);
  }
}

Kind parse_kind(const std::string& text) {
  for (Kind k : {Kind::dataset, Kind::model, Kind::op, Kind::strategy})
    if (text == kind_name(k)) return k;
  throw ConfigError("unknown kind '" + text + "' in `runner describe`",
                    "use KIND/NAME with KIND one of dataset, model, op, strategy, or one of "
                    "experiment, train, optimizer, schedule, sweep");
}

// `runner describe augment` lists every transform; `augment/NAME` one of them.
int describe_augment(const std::string& what) {
  const std::string prefix = "augment/";
  std::vector<std::string> names = augment::transform_names();
  if (what != "augment") {
    const std::string name = what.substr(prefix.size());
    if (!augment::transform_schema(name))
      throw ConfigError(
          "unknown transform '" + name + "' in `runner describe`" + config::suggestion(name, names),
          "transforms: " + config::joined(names));
    names = {name};
  }
  for (const auto& name : names) {
    std::cout << "[[dataset.augment]] name = \"" << name
              << "\" (runner): " << augment::transform_description(name) << "\n";
    print_keys(*augment::transform_schema(name));
  }
  return 0;
}

int describe_component(const plugin_host::Registered& r) {
  const Component& c = *r.component;
  std::cout << kind_name(c.kind) << "/" << c.name << " " << c.version << ": " << c.description
            << "\n  from " << r.library->path() << "\nkeys:\n";
  print_keys(c.schema);
  return 0;
}

// `runner describe` alone: everything that can be described, one name a line.
int list_describable(const std::vector<std::string>& plugin_path) {
  std::cout << "the host's sections (runner describe SECTION):\n";
  for (const auto& [section, schema] : kHostSections) std::cout << "  " << section << "\n";
  std::cout << "the batch transforms: augment, augment/NAME\n"
               "the plugins' components (runner describe KIND/NAME):\n";
  plugin_host::Registry registry = load_registry(plugin_path, "");
  for (const plugin_host::Registered* r : registry.all())
    std::cout << "  " << kind_name(r->component->kind) << "/" << r->component->name << "\n";
  return 0;
}

}  // namespace

int describe_command(const std::string& what, const std::vector<std::string>& plugin_path) {
  if (what.empty()) return list_describable(plugin_path);
  for (const auto& [section, schema] : kHostSections)
    if (what == section) {
      std::cout << "[" << section << "] (runner)\n";
      print_keys(schema());
      return 0;
    }
  if (what == "augment" || what.rfind("augment/", 0) == 0) return describe_augment(what);
  auto slash = what.find('/');
  if (slash == std::string::npos)
    throw ConfigError("`runner describe " + what + "`: expected KIND/NAME, e.g. model/lenet5",
                      "or one of experiment, train, optimizer, schedule, sweep, augment");
  Kind kind = parse_kind(what.substr(0, slash));
  plugin_host::Registry registry = load_registry(plugin_path, "");
  return plugin_host::with_host_owned_errors(
      [&] { return describe_component(registry.get(kind, what.substr(slash + 1))); });
}

}  // namespace runner::cli
