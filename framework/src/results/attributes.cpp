// Scalar attributes written and read: UTF-8 strings, int64, float64; presence and names in order.
#include "results/attributes.hpp"

#include "results/hdf5_handle.hpp"
#include "results/strings.hpp"
#include "runner/errors.hpp"

namespace runner::results::detail {

namespace {

std::string describe_attribute(hid_t object, const std::string& name) {
  return "attribute '" + name + "' of " + object_path(object);
}

Handle scalar_space() { return own(H5Screate(H5S_SCALAR), H5Sclose, "cannot create a dataspace"); }

Handle open_or_create(hid_t object, const std::string& name, hid_t stored_type) {
  const std::string what = "cannot write " + describe_attribute(object, name);
  if (has_attribute(object, name))
    return own(H5Aopen(object, name.c_str(), H5P_DEFAULT), H5Aclose, what);
  return own(
      H5Acreate2(object, name.c_str(), stored_type, scalar_space().get(), H5P_DEFAULT, H5P_DEFAULT),
      H5Aclose, what);
}

void write_number(hid_t object, const std::string& name, hid_t stored_type, hid_t memory_type,
                  const void* value) {
  Handle attribute = open_or_create(object, name, stored_type);
  check(H5Awrite(attribute.get(), memory_type, value),
        "cannot write " + describe_attribute(object, name));
}

Handle open_single_value(hid_t object, const std::string& name) {
  const std::string what = describe_attribute(object, name);
  if (!has_attribute(object, name)) throw DataError("missing " + what);
  Handle attribute =
      own(H5Aopen(object, name.c_str(), H5P_DEFAULT), H5Aclose, "cannot open " + what);
  Handle space = own(H5Aget_space(attribute.get()), H5Sclose, "cannot read " + what);
  if (H5Sget_simple_extent_npoints(space.get()) != 1)
    throw DataError(what + " does not hold exactly one value");
  return attribute;
}

void read_number(hid_t object, const std::string& name, hid_t memory_type, void* value) {
  Handle attribute = open_single_value(object, name);
  check(H5Aread(attribute.get(), memory_type, value),
        "cannot read " + describe_attribute(object, name));
}

herr_t collect_attribute_name(hid_t, const char* name, const H5A_info_t*, void* names) {
  static_cast<std::vector<std::string>*>(names)->emplace_back(name);
  return 0;
}

bool tracks_attribute_order(hid_t group) {
  Handle properties = own(H5Gget_create_plist(group), H5Pclose,
                          "cannot read the properties of " + object_path(group));
  unsigned flags = 0;
  check(H5Pget_attr_creation_order(properties.get(), &flags),
        "cannot read the properties of " + object_path(group));
  return (flags & H5P_CRT_ORDER_INDEXED) != 0;
}

}  // namespace

bool has_attribute(hid_t object, const std::string& name) {
  const htri_t exists = H5Aexists(object, name.c_str());
  check(exists, "cannot look up " + describe_attribute(object, name));
  return exists > 0;
}

void write_string_attribute(hid_t object, const std::string& name, const std::string& value) {
  Handle type = utf8_string_type();
  Handle attribute = open_or_create(object, name, type.get());
  const char* text = value.c_str();
  check(H5Awrite(attribute.get(), type.get(), &text),
        "cannot write " + describe_attribute(object, name));
}

void write_int_attribute(hid_t object, const std::string& name, int64_t value) {
  write_number(object, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value);
}

void write_double_attribute(hid_t object, const std::string& name, double value) {
  write_number(object, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
}

std::string read_string_attribute(hid_t object, const std::string& name) {
  Handle attribute = open_single_value(object, name);
  const std::string what = "cannot read " + describe_attribute(object, name);
  Handle type = own(H5Aget_type(attribute.get()), H5Tclose, what);
  Handle space = own(H5Aget_space(attribute.get()), H5Sclose, what);
  const ReadInto read = [&](hid_t memory_type, void* buffer) {
    return H5Aread(attribute.get(), memory_type, buffer);
  };
  return read_strings(type.get(), space.get(), read, what).front();
}

int64_t read_int_attribute(hid_t object, const std::string& name) {
  int64_t value = 0;
  read_number(object, name, H5T_NATIVE_INT64, &value);
  return value;
}

double read_double_attribute(hid_t object, const std::string& name) {
  double value = 0;
  read_number(object, name, H5T_NATIVE_DOUBLE, &value);
  return value;
}

std::vector<std::string> attribute_names(hid_t group) {
  const H5_index_t order = tracks_attribute_order(group) ? H5_INDEX_CRT_ORDER : H5_INDEX_NAME;
  std::vector<std::string> names;
  check(H5Aiterate2(group, order, H5_ITER_INC, nullptr, collect_attribute_name, &names),
        "cannot list the attributes of " + object_path(group));
  return names;
}

}  // namespace runner::results::detail
