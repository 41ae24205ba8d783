// Scalar attributes: strings (variable-length UTF-8), int64 and float64.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <hdf5.h>

namespace runner::results::detail {

bool has_attribute(hid_t object, const std::string& name);

// Writing an attribute that exists replaces its value in place (set_status relies on it).
void write_string_attribute(hid_t object, const std::string& name, const std::string& value);
void write_int_attribute(hid_t object, const std::string& name, int64_t value);
void write_double_attribute(hid_t object, const std::string& name, double value);

// Throw DataError naming the attribute and its object when it is missing or of another kind.
std::string read_string_attribute(hid_t object, const std::string& name);
int64_t read_int_attribute(hid_t object, const std::string& name);
double read_double_attribute(hid_t object, const std::string& name);

// The group's attribute names, in creation order when the group tracks it, else by name.
std::vector<std::string> attribute_names(hid_t group);

}  // namespace runner::results::detail
