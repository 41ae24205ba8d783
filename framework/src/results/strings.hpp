// Strings in HDF5: runner writes variable-length UTF-8 (h5py reads them as str); it reads
// fixed-length ones too, since users may add or rewrite attributes with other tools.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "results/hdf5_handle.hpp"

namespace runner::results::detail {

Handle utf8_string_type();

// Reads into `buffer` as `memory_type`: H5Aread or H5Dread bound to one attribute or dataset.
using ReadInto = std::function<herr_t(hid_t memory_type, void* buffer)>;

// Every element of a string attribute or dataset of type `stored_type` and extent `space`.
std::vector<std::string> read_strings(hid_t stored_type, hid_t space, const ReadInto& read,
                                      const std::string& what);

}  // namespace runner::results::detail
