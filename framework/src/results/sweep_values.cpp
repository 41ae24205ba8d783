// Writing and reading a sweep value as an attribute of its type, booleans as h5py's enum.
#include "results/sweep_values.hpp"

#include "results/attributes.hpp"
#include "results/hdf5_handle.hpp"
#include "runner/errors.hpp"

namespace runner::results::detail {

namespace {

// h5py's boolean: an 8-bit enum of FALSE = 0 and TRUE = 1, read back as numpy.bool_.
Handle boolean_type() {
  Handle type = own(H5Tenum_create(H5T_NATIVE_INT8), H5Tclose, "cannot create a boolean type");
  const int8_t no = 0, yes = 1;
  check(H5Tenum_insert(type.get(), "FALSE", &no), "cannot create a boolean type");
  check(H5Tenum_insert(type.get(), "TRUE", &yes), "cannot create a boolean type");
  return type;
}

void write_bool_attribute(hid_t object, const std::string& name, bool value) {
  const std::string what = "cannot write attribute '" + name + "' of " + object_path(object);
  Handle type = boolean_type();
  Handle space = own(H5Screate(H5S_SCALAR), H5Sclose, what);
  Handle attribute =
      own(H5Acreate2(object, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
          H5Aclose, what);
  const int8_t stored = value ? 1 : 0;
  check(H5Awrite(attribute.get(), type.get(), &stored), what);
}

bool read_bool_attribute(hid_t object, const std::string& name) {
  const std::string what = "cannot read attribute '" + name + "' of " + object_path(object);
  Handle attribute = own(H5Aopen(object, name.c_str(), H5P_DEFAULT), H5Aclose, what);
  Handle type = boolean_type();
  int8_t stored = 0;
  check(H5Aread(attribute.get(), type.get(), &stored), what);
  return stored != 0;
}

H5T_class_t stored_class(hid_t object, const std::string& name) {
  const std::string what = "cannot read attribute '" + name + "' of " + object_path(object);
  Handle attribute = own(H5Aopen(object, name.c_str(), H5P_DEFAULT), H5Aclose, what);
  Handle type = own(H5Aget_type(attribute.get()), H5Tclose, what);
  return H5Tget_class(type.get());
}

}  // namespace

void write_sweep_value(hid_t group, const std::string& name, const SweepValue& value) {
  if (const auto* flag = std::get_if<bool>(&value)) return write_bool_attribute(group, name, *flag);
  if (const auto* integer = std::get_if<int64_t>(&value))
    return write_int_attribute(group, name, *integer);
  if (const auto* number = std::get_if<double>(&value))
    return write_double_attribute(group, name, *number);
  write_string_attribute(group, name, std::get<std::string>(value));
}

SweepValue read_sweep_value(hid_t group, const std::string& name) {
  switch (stored_class(group, name)) {
    case H5T_ENUM: return read_bool_attribute(group, name);
    case H5T_INTEGER: return read_int_attribute(group, name);
    case H5T_FLOAT: return read_double_attribute(group, name);
    case H5T_STRING: return read_string_attribute(group, name);
    default:
      throw DataError("attribute '" + name + "' of " + object_path(group) +
                      " is not a boolean, integer, float or string");
  }
}

}  // namespace runner::results::detail
