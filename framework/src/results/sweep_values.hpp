// A sweep point's values as attributes of their TOML type: booleans as h5py's boolean enum,
// integers as int64, floats as float64, strings (and lists, as their TOML text) as UTF-8.
#pragma once

#include <string>

#include <hdf5.h>

#include "results/results.hpp"

namespace runner::results::detail {

void write_sweep_value(hid_t group, const std::string& name, const SweepValue& value);

// Reads any of the above; files of format version 1 hold strings only.
SweepValue read_sweep_value(hid_t group, const std::string& name);

}  // namespace runner::results::detail
