// Creating extendible series, appending ints or doubles to them, and cutting them to a length.
#include "results/series.hpp"

#include "results/hdf5_handle.hpp"

namespace runner::results::detail {

namespace {

std::string describe_series(hid_t parent, const std::string& name) {
  return "series '" + member_path(parent, name) + "'";
}

void append(hid_t parent, const std::string& name, hid_t memory_type, const void* values,
            size_t count) {
  if (count == 0) return;
  const std::string what = "cannot append to " + describe_series(parent, name);
  Handle dataset = own(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), H5Dclose, what);
  hsize_t old_length = 0;
  {
    Handle space = own(H5Dget_space(dataset.get()), H5Sclose, what);
    check(H5Sget_simple_extent_dims(space.get(), &old_length, nullptr), what);
  }
  const hsize_t new_length[1] = {old_length + count};
  check(H5Dset_extent(dataset.get(), new_length), what);

  Handle file_space = own(H5Dget_space(dataset.get()), H5Sclose, what);
  const hsize_t start[1] = {old_length};
  const hsize_t block[1] = {count};
  check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, block, nullptr),
        what);
  Handle memory_space = own(H5Screate_simple(1, block, nullptr), H5Sclose, what);
  check(H5Dwrite(dataset.get(), memory_type, memory_space.get(), file_space.get(), H5P_DEFAULT,
                 values),
        what);
}

}  // namespace

void create_series(hid_t parent, const std::string& name, SeriesType type, size_t chunk_length) {
  const std::string what = "cannot create " + describe_series(parent, name);
  const hsize_t length[1] = {0};
  const hsize_t max_length[1] = {H5S_UNLIMITED};
  Handle space = own(H5Screate_simple(1, length, max_length), H5Sclose, what);
  Handle properties = own(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, what);
  const hsize_t chunk[1] = {chunk_length};
  check(H5Pset_chunk(properties.get(), 1, chunk), what);
  const hid_t stored_type = type == SeriesType::int64 ? H5T_STD_I64LE : H5T_IEEE_F64LE;
  const Handle created = own(H5Dcreate2(parent, name.c_str(), stored_type, space.get(), H5P_DEFAULT,
                                        properties.get(), H5P_DEFAULT),
                             H5Dclose, what);
}

void append_to_series(hid_t parent, const std::string& name, const std::vector<int64_t>& values) {
  append(parent, name, H5T_NATIVE_INT64, values.data(), values.size());
}

void append_to_series(hid_t parent, const std::string& name, const std::vector<double>& values) {
  append(parent, name, H5T_NATIVE_DOUBLE, values.data(), values.size());
}

void cut_series(hid_t parent, const std::string& name, size_t length) {
  const std::string what = "cannot cut " + describe_series(parent, name);
  Handle dataset = own(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), H5Dclose, what);
  hsize_t old_length = 0;
  {
    Handle space = own(H5Dget_space(dataset.get()), H5Sclose, what);
    check(H5Sget_simple_extent_dims(space.get(), &old_length, nullptr), what);
  }
  const hsize_t new_length[1] = {length};
  if (length < old_length) check(H5Dset_extent(dataset.get(), new_length), what);
}

}  // namespace runner::results::detail
