// Extendible, chunked 1-D datasets that grow by appending: the per-epoch and per-step series.
// Read them back with read_double_list / read_int_list (datasets.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <hdf5.h>

namespace runner::results::detail {

enum class SeriesType { int64, float64 };

// An empty series. `chunk_length` elements are stored (and grown) together.
void create_series(hid_t parent, const std::string& name, SeriesType type, size_t chunk_length);

void append_to_series(hid_t parent, const std::string& name, const std::vector<int64_t>& values);
void append_to_series(hid_t parent, const std::string& name, const std::vector<double>& values);

// A series longer than `length` loses its later elements.
void cut_series(hid_t parent, const std::string& name, size_t length);

}  // namespace runner::results::detail
