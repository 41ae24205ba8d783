// [sweep]: dotted keys (or whole sections) to lists of values; the runs are their product (first
// key slowest) or, with mode = "zip", the lists read side by side.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "config/raw_config.hpp"

namespace runner::config {

// The axes of the sweep, in file order. Keys are given as quoted dotted keys
// ("train.batch_size" = [32, 64]) or in sub-tables ([sweep.train] batch_size = [32, 64]).
SweepSpec read_sweep(const std::shared_ptr<const toml::table>& document, const toml::table& sweep,
                     const std::string& file);

// A whole section swept ("strategy" = [{name = "ddp"}, {name = "zero", stage = 2}]): each
// value is a table whose keys go over the section's own.
bool is_section_axis(const SweepAxis& axis);
// Whether some table of a section axis sets `key` (a key of that section).
bool section_axis_sets(const SweepAxis& axis, const std::string& key);
// A swept table as a run's label shows it: zero(stage=2).
std::string section_value_text(const RawValue& value);

// One entry per run: the index into each axis's values. One empty point without a sweep.
std::vector<std::vector<size_t>> sweep_points(const SweepSpec& sweep);

// The sections of one run: those of `raw` with the values of `point` substituted. `number`
// counts the points from 1; the values a point inherits from a section it sweeps name it.
RawSections sections_at(const RawConfig& raw, const std::vector<size_t>& point, size_t number);

}  // namespace runner::config
