// Reading [sweep]'s axes and their checks, and the runs as index points of a product or a zip.
#include "config/sweep.hpp"

#include <algorithm>
#include <sstream>

#include "common/clipped_text.hpp"
#include "config/error_text.hpp"
#include "config/experiment.hpp"
#include "config/host_schemas.hpp"
#include "config/sections.hpp"
#include "config/toml_values.hpp"
#include "config/validate.hpp"

namespace runner::config {
namespace {

const std::string kSweepHint =
    "sweep a key with \"train.batch_size\" = [32, 64] or [sweep.train] batch_size = [32, 64]";

struct FoundAxis {
  toml::source_position at;  // for file order
  SweepAxis axis;
};

// Keys that hold for the experiment as a whole (one results file, one set of plugins).
bool is_experiment_wide(const std::string& dotted) {
  return dotted == "experiment.name" || dotted == "experiment.results" ||
         dotted == "experiment.plugin_path";
}

// "strategy" = [{name = "ddp"}, {name = "zero", stage = 2}]: each table's keys over the
// section's own, so that runs of different plugins compare in one sweep.
void check_section_axis(const SweepAxis& axis) {
  if (axis.key == "experiment")
    fail(axis.where, "[sweep] experiment cannot be swept whole",
         "sweep its keys: \"experiment.seed\" = [0, 1]");
  for (const auto& value : axis.values)
    if (!value.node->is_table())
      fail(axis.where,
           "[sweep] " + axis.key + " sweeps the section whole: its values must be tables, not " +
               describe_node(*value.node),
           "write \"" + axis.key +
               "\" = [{name = \"a\"}, {name = \"b\", key = 1}], or sweep "
               "one key: \"" +
               axis.key + ".name\" = [\"a\", \"b\"]");
}

void check_axis_key(const SweepAxis& axis) {
  if (is_section_axis(axis)) return check_section_axis(axis);
  if (is_augment_key(axis.key))
    fail(axis.where, "[sweep] " + axis.key + ": augmentation lists cannot be swept",
         "write one experiment file per list of [[dataset.augment]] tables");
  std::optional<DottedKey> key = split_dotted_key(axis.key);
  if (!key)
    fail(axis.where, "[sweep] " + axis.key + " is not a dotted key section.key", kSweepHint);
  if (!is_settings_section(key->section)) {
    const std::string first = axis.key.substr(0, axis.key.find('.'));
    fail(axis.where,
         "[sweep] " + axis.key + " names no known section" + suggestion(first, known_sections()),
         "known sections: " + joined(known_sections()));
  }
  if (is_experiment_wide(axis.key))
    fail(axis.where,
         "[sweep] " + axis.key + " is the same for every run of an experiment and cannot be swept",
         "split the sweep into one experiment file per value");
}

SweepAxis read_axis(const std::shared_ptr<const toml::table>& document, const std::string& dotted,
                    const std::string& where, const toml::node& node) {
  const auto* list = node.as_array();
  if (!list || list->empty())
    fail(where,
         "[sweep] " + dotted + " must be a non-empty list of values, not " + describe_node(node),
         kSweepHint);
  SweepAxis axis{dotted, where, {}};
  for (const auto& value : *list)
    axis.values.push_back(RawValue{node_in(document, value), where, false});
  check_axis_key(axis);
  return axis;
}

// Sub-tables ([sweep.train]) add their name in front of the keys they hold.
void collect_axes(const std::shared_ptr<const toml::table>& document, const toml::table& table,
                  const std::string& prefix, const std::string& file,
                  std::vector<FoundAxis>& found) {
  for (const auto& [key, node] : table) {
    const std::string dotted = prefix + std::string(key.str());
    if (prefix.empty() && sweep_schema().find(dotted)) continue;
    if (const auto* sub = node.as_table()) {
      collect_axes(document, *sub, dotted + ".", file, found);
      continue;
    }
    found.push_back({key.source().begin,
                     read_axis(document, dotted, position(file, key.source().begin), node)});
  }
}

// [sweep]'s own keys, checked by their schema like every other key.
Value sweep_setting(const std::shared_ptr<const toml::table>& document, const toml::table& sweep,
                    const std::string& file, const std::string& name) {
  const KeySpec& spec = *sweep_schema().find(name);
  auto it = sweep.find(name);
  if (it == sweep.end()) return *spec.default_value;
  RawValue raw{node_in(document, it->second), position(file, it->first.source().begin), false};
  return checked_value(raw, "sweep." + name, spec);
}

void check_no_repeats(const std::vector<SweepAxis>& axes) {
  for (size_t i = 0; i < axes.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (axes[i].key == axes[j].key)
        fail(axes[i].where,
             "[sweep] " + axes[i].key + " is swept twice (also at " + axes[j].where + ")",
             "keep one list per key");
}

void check_zip_lengths(const SweepSpec& sweep) {
  std::string lengths;
  bool equal = true;
  for (const auto& axis : sweep.axes) {
    lengths +=
        (lengths.empty() ? "" : ", ") + axis.key + " has " + std::to_string(axis.values.size());
    equal = equal && axis.values.size() == sweep.axes.front().values.size();
  }
  if (!equal)
    fail(sweep.where, "[sweep] mode = \"zip\" needs lists of equal length: " + lengths,
         "give every list as many values as there are runs, or use mode = \"product\"");
}

// The runs of a product sweep, counted before any is made: 5 lists of 100 values are 10^10
// runs, which would fill the memory long before the first one trains.
void check_product_size(const SweepSpec& sweep) {
  uint64_t points = 1;
  bool over = false;
  std::string factors;
  for (const auto& axis : sweep.axes) {
    factors += (factors.empty() ? "" : " x ") + std::to_string(axis.values.size());
    over = over || __builtin_mul_overflow(points, axis.values.size(), &points);
  }
  const uint64_t limit = static_cast<uint64_t>(sweep.max_points);
  if (!over && points <= limit) return;
  const std::string count = over ? "more than 2^64" : std::to_string(points);
  fail(sweep.where,
       "[sweep] expands to " + count + " runs (" + factors +
           "), more than max_points = " + std::to_string(limit),
       "sweep fewer values, or raise the limit with max_points = " +
           (over ? std::string("N") : count) + " under [sweep]");
}

void check_zip_size(const SweepSpec& sweep) {
  const size_t runs = sweep.axes.empty() ? 1 : sweep.axes.front().values.size();
  if (runs <= static_cast<uint64_t>(sweep.max_points)) return;
  fail(sweep.where,
       "[sweep] pairs " + std::to_string(runs) +
           " runs, more than max_points = " + std::to_string(sweep.max_points),
       "sweep fewer values, or raise the limit with max_points = " + std::to_string(runs) +
           " under [sweep]");
}

std::vector<std::vector<size_t>> product_points(const SweepSpec& sweep) {
  check_product_size(sweep);
  std::vector<std::vector<size_t>> points = {{}};
  for (const auto& axis : sweep.axes) {
    std::vector<std::vector<size_t>> longer;
    for (const auto& point : points)
      for (size_t i = 0; i < axis.values.size(); ++i) {
        longer.push_back(point);
        longer.back().push_back(i);
      }
    points = std::move(longer);
  }
  return points;
}

std::vector<std::vector<size_t>> zip_points(const SweepSpec& sweep) {
  check_zip_lengths(sweep);
  check_zip_size(sweep);
  const size_t runs = sweep.axes.empty() ? 1 : sweep.axes.front().values.size();
  std::vector<std::vector<size_t>> points;
  for (size_t i = 0; i < runs; ++i) points.emplace_back(sweep.axes.size(), i);
  return points;
}

// A value as a run's label shows it: a string without its quotes.
std::string node_text(const toml::node& node) {
  if (const auto* s = node.as_string()) return s->get();
  std::ostringstream out;
  node.visit([&out](const auto& n) { out << n; });
  return out.str();
}

// The section whose component or table an axis picks: "strategy" for strategy = [{...}] and
// for "strategy.name" = [...]; "" for an axis of another key.
std::string picking_section(const SweepAxis& axis) {
  if (is_section_axis(axis)) return axis.key;
  std::optional<DottedKey> key = split_dotted_key(axis.key);
  return key && key->key == "name" ? key->section : "";
}

// The axis's part of a run's label: "strategy=zero(stage=2)", "strategy.name=single".
std::string axis_setting(const SweepAxis& axis, const RawValue& value) {
  return axis.key + "=" +
         (is_section_axis(axis) ? section_value_text(value) : node_text(*value.node));
}

// A value the file gives a section keeps its place in a point that picks another component
// or table for that section; should that component lack the key, the place alone would point
// at a [strategy] that is valid as written.
void mark_inherited(const RawConfig& raw, const std::vector<size_t>& point, size_t number,
                    RawSections& sections) {
  for (size_t i = 0; i < point.size(); ++i) {
    const SweepAxis& axis = raw.sweep.axes[i];
    auto given = raw.sections.find(picking_section(axis));
    if (given == raw.sections.end()) continue;
    const std::string point_name = "sweep point " + std::to_string(number) + " (" +
                                   clipped(axis_setting(axis, axis.values[point[i]])) + ")";
    for (auto& [key, value] : sections[given->first].values) {
      auto kept = given->second.values.find(key);
      if (kept != given->second.values.end() && kept->second.node == value.node)
        value.inherited_by = point_name;
    }
  }
}

}  // namespace

SweepSpec read_sweep(const std::shared_ptr<const toml::table>& document, const toml::table& sweep,
                     const std::string& file) {
  std::vector<FoundAxis> found;
  collect_axes(document, sweep, "", file, found);
  std::stable_sort(found.begin(), found.end(),
                   [](const FoundAxis& a, const FoundAxis& b) { return a.at < b.at; });
  SweepSpec spec{position(file, sweep),
                 {},
                 std::get<std::string>(sweep_setting(document, sweep, file, "mode")) == "zip",
                 std::get<int64_t>(sweep_setting(document, sweep, file, "max_points"))};
  for (auto& f : found) spec.axes.push_back(std::move(f.axis));
  check_no_repeats(spec.axes);
  return spec;
}

std::vector<std::vector<size_t>> sweep_points(const SweepSpec& sweep) {
  return sweep.zip ? zip_points(sweep) : product_points(sweep);
}

bool is_section_axis(const SweepAxis& axis) {
  return axis.key.find('.') == std::string::npos && is_settings_section(axis.key);
}

bool section_axis_sets(const SweepAxis& axis, const std::string& key) {
  if (!is_section_axis(axis)) return false;
  for (const auto& value : axis.values)
    if (const auto* table = value.node->as_table(); table && table->contains(key)) return true;
  return false;
}

std::string section_value_text(const RawValue& value) {
  const toml::table& table = *value.node->as_table();
  std::string name, rest;
  for (const auto& [key, node] : table) {
    if (key.str() == "name")
      name = node_text(node);
    else
      rest += (rest.empty() ? "" : ", ") + std::string(key.str()) + "=" + node_text(node);
  }
  if (name.empty()) return rest;
  return rest.empty() ? name : name + "(" + rest + ")";
}

RawSections sections_at(const RawConfig& raw, const std::vector<size_t>& point, size_t number) {
  RawSections sections = raw.sections;
  for (size_t i = 0; i < point.size(); ++i) {
    const SweepAxis& axis = raw.sweep.axes[i];
    if (is_section_axis(axis)) {
      const RawValue& value = axis.values[point[i]];
      RawSection& section = sections[axis.key];
      if (section.where.empty()) section.where = file_start(raw.file);
      for (const auto& [key, node] : *value.node->as_table())
        section.values[std::string(key.str())] =
            RawValue{std::shared_ptr<const toml::node>(value.node, &node), value.where, false};
      continue;
    }
    DottedKey key = *split_dotted_key(axis.key);
    RawSection& section = sections[key.section];
    if (section.where.empty()) section.where = file_start(raw.file);
    section.values[key.key] = axis.values[point[i]];
  }
  mark_inherited(raw, point, number, sections);
  return sections;
}

}  // namespace runner::config
