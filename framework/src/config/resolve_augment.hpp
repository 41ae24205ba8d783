// [[dataset.augment]]: each table's `name` picks one of the host's batch transforms, whose
// schema checks the table's other keys. The dataset plugin never sees these tables.
#pragma once

#include <string>
#include <vector>

#include "config/experiment.hpp"
#include "config/raw_config.hpp"

namespace runner::config {

// The transforms of `dataset`'s "augment" key, in file order, each validated; the key is
// removed from `dataset`. Errors name dataset.augment[i] (counted from 0) and its place.
std::vector<AugmentConfig> take_augment(RawSection& dataset, const std::string& file);

}  // namespace runner::config
