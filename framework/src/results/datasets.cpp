// Writing and reading fixed-size datasets: a scalar string, lists of strings, doubles and ints.
#include "results/datasets.hpp"

#include "results/groups.hpp"
#include "results/hdf5_handle.hpp"
#include "results/strings.hpp"
#include "runner/errors.hpp"

namespace runner::results::detail {

namespace {

std::string describe_dataset(hid_t parent, const std::string& name) {
  return "dataset '" + member_path(parent, name) + "'";
}

Handle list_space(size_t length) {
  const hsize_t dims[1] = {length};
  return own(H5Screate_simple(1, dims, nullptr), H5Sclose, "cannot create a dataspace");
}

Handle create_dataset(hid_t parent, const std::string& name, hid_t stored_type, hid_t space) {
  return own(
      H5Dcreate2(parent, name.c_str(), stored_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
      H5Dclose, "cannot create " + describe_dataset(parent, name));
}

void write_all(hid_t dataset, hid_t memory_type, const void* values, const std::string& what) {
  check(H5Dwrite(dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values), what);
}

Handle open_dataset(hid_t parent, const std::string& name) {
  if (!has_member(parent, name)) throw DataError("missing " + describe_dataset(parent, name));
  return own(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), H5Dclose,
             "cannot open " + describe_dataset(parent, name));
}

std::vector<std::string> read_all_strings(hid_t parent, const std::string& name) {
  Handle dataset = open_dataset(parent, name);
  const std::string what = "cannot read " + describe_dataset(parent, name);
  Handle type = own(H5Dget_type(dataset.get()), H5Tclose, what);
  Handle space = own(H5Dget_space(dataset.get()), H5Sclose, what);
  const ReadInto read = [&](hid_t memory_type, void* buffer) {
    return H5Dread(dataset.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer);
  };
  return read_strings(type.get(), space.get(), read, what);
}

size_t list_length(hid_t dataset, const std::string& what) {
  Handle space = own(H5Dget_space(dataset), H5Sclose, what);
  if (H5Sget_simple_extent_ndims(space.get()) != 1) throw DataError(what + ": not 1-D");
  hsize_t length = 0;
  check(H5Sget_simple_extent_dims(space.get(), &length, nullptr), what);
  return static_cast<size_t>(length);
}

template <typename Number>
std::vector<Number> read_numbers(hid_t parent, const std::string& name, hid_t memory_type) {
  Handle dataset = open_dataset(parent, name);
  const std::string what = "cannot read " + describe_dataset(parent, name);
  std::vector<Number> values(list_length(dataset.get(), what));
  if (!values.empty())
    check(H5Dread(dataset.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), what);
  return values;
}

}  // namespace

void write_string_dataset(hid_t parent, const std::string& name, const std::string& value) {
  Handle type = utf8_string_type();
  Handle space = own(H5Screate(H5S_SCALAR), H5Sclose, "cannot create a dataspace");
  Handle dataset = create_dataset(parent, name, type.get(), space.get());
  const char* text = value.c_str();
  write_all(dataset.get(), type.get(), &text, "cannot write " + describe_dataset(parent, name));
}

std::string read_string_dataset(hid_t parent, const std::string& name) {
  std::vector<std::string> values = read_all_strings(parent, name);
  if (values.size() != 1)
    throw DataError(describe_dataset(parent, name) + " is not a single string");
  return values.front();
}

void write_string_list(hid_t parent, const std::string& name,
                       const std::vector<std::string>& values) {
  Handle type = utf8_string_type();
  Handle dataset = create_dataset(parent, name, type.get(), list_space(values.size()).get());
  std::vector<const char*> texts;
  texts.reserve(values.size());
  for (const std::string& value : values) texts.push_back(value.c_str());
  if (!texts.empty())
    write_all(dataset.get(), type.get(), texts.data(),
              "cannot write " + describe_dataset(parent, name));
}

std::vector<std::string> read_string_list(hid_t parent, const std::string& name) {
  return read_all_strings(parent, name);
}

void write_double_list(hid_t parent, const std::string& name, const std::vector<double>& values) {
  Handle dataset = create_dataset(parent, name, H5T_IEEE_F64LE, list_space(values.size()).get());
  if (!values.empty())
    write_all(dataset.get(), H5T_NATIVE_DOUBLE, values.data(),
              "cannot write " + describe_dataset(parent, name));
}

std::vector<double> read_double_list(hid_t parent, const std::string& name) {
  return read_numbers<double>(parent, name, H5T_NATIVE_DOUBLE);
}

std::vector<int64_t> read_int_list(hid_t parent, const std::string& name) {
  return read_numbers<int64_t>(parent, name, H5T_NATIVE_INT64);
}

}  // namespace runner::results::detail
