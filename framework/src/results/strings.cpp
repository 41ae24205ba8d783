// Reading HDF5 strings, variable- or fixed-length, and the UTF-8 type runner writes.
#include "results/strings.hpp"

#include <cstring>

#include "runner/errors.hpp"

namespace runner::results::detail {

namespace {

std::vector<std::string> read_variable_length(hid_t stored_type, hid_t space, size_t count,
                                              const ReadInto& read, const std::string& what) {
  std::vector<char*> texts(count, nullptr);
  check(read(stored_type, texts.data()), what);
  std::vector<std::string> strings;
  strings.reserve(count);
  for (const char* text : texts) strings.emplace_back(text != nullptr ? text : "");
  H5Dvlen_reclaim(stored_type, space, H5P_DEFAULT, texts.data());
  return strings;
}

std::vector<std::string> read_fixed_length(hid_t stored_type, size_t count, const ReadInto& read,
                                           const std::string& what) {
  const size_t size = H5Tget_size(stored_type);
  std::vector<char> buffer(count * size);
  check(read(stored_type, buffer.data()), what);
  std::vector<std::string> strings;
  strings.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const char* text = buffer.data() + i * size;
    strings.emplace_back(text, strnlen(text, size));
  }
  return strings;
}

}  // namespace

Handle utf8_string_type() {
  Handle type = own(H5Tcopy(H5T_C_S1), H5Tclose, "cannot create a string type");
  check(H5Tset_size(type.get(), H5T_VARIABLE), "cannot create a string type");
  check(H5Tset_cset(type.get(), H5T_CSET_UTF8), "cannot create a string type");
  return type;
}

// The stored type doubles as the memory type: strings have no byte order, and converting
// between character sets is something HDF5 refuses.
std::vector<std::string> read_strings(hid_t stored_type, hid_t space, const ReadInto& read,
                                      const std::string& what) {
  if (H5Tget_class(stored_type) != H5T_STRING) throw DataError(what + ": not a string");
  const hssize_t count = H5Sget_simple_extent_npoints(space);
  if (count < 0) throw_hdf5_error(what);
  if (count == 0) return {};
  if (H5Tis_variable_str(stored_type) > 0)
    return read_variable_length(stored_type, space, static_cast<size_t>(count), read, what);
  return read_fixed_length(stored_type, static_cast<size_t>(count), read, what);
}

}  // namespace runner::results::detail
