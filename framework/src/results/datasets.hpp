// Fixed-size datasets: a scalar string, and 1-D lists of strings or numbers. Reading a 1-D
// numeric dataset works for the extendible series too.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <hdf5.h>

namespace runner::results::detail {

void write_string_dataset(hid_t parent, const std::string& name, const std::string& value);
std::string read_string_dataset(hid_t parent, const std::string& name);

void write_string_list(hid_t parent, const std::string& name,
                       const std::vector<std::string>& values);
std::vector<std::string> read_string_list(hid_t parent, const std::string& name);

void write_double_list(hid_t parent, const std::string& name, const std::vector<double>& values);

// Throw DataError naming the dataset when it is missing, not 1-D or not numeric.
std::vector<double> read_double_list(hid_t parent, const std::string& name);
std::vector<int64_t> read_int_list(hid_t parent, const std::string& name);

}  // namespace runner::results::detail
