// Creating and opening groups with link order tracked, and listing their members in order.
#include "results/groups.hpp"

#include "runner/errors.hpp"

namespace runner::results::detail {

namespace {

std::string describe_group(hid_t parent, const std::string& name) {
  return "group '" + member_path(parent, name) + "'";
}

// `group` may be a file identifier, which H5Gget_create_plist refuses: "." is its root group.
bool tracks_link_order(hid_t group) {
  const std::string what = "cannot read the properties of " + object_path(group);
  Handle itself = own(H5Gopen2(group, ".", H5P_DEFAULT), H5Gclose, what);
  Handle properties = own(H5Gget_create_plist(itself.get()), H5Pclose, what);
  unsigned flags = 0;
  check(H5Pget_link_creation_order(properties.get(), &flags), what);
  return (flags & H5P_CRT_ORDER_INDEXED) != 0;
}

std::string member_name(hid_t group, H5_index_t order, hsize_t index, const std::string& what) {
  const ssize_t length =
      H5Lget_name_by_idx(group, ".", order, H5_ITER_INC, index, nullptr, 0, H5P_DEFAULT);
  if (length < 0) throw_hdf5_error(what);
  std::string name(static_cast<size_t>(length) + 1, '\0');
  if (H5Lget_name_by_idx(group, ".", order, H5_ITER_INC, index, name.data(), name.size(),
                         H5P_DEFAULT) < 0)
    throw_hdf5_error(what);
  name.resize(static_cast<size_t>(length));
  return name;
}

}  // namespace

Handle create_group(hid_t parent, const std::string& name, AttributeOrder attribute_order) {
  const std::string what = "cannot create " + describe_group(parent, name);
  Handle properties = own(H5Pcreate(H5P_GROUP_CREATE), H5Pclose, what);
  if (attribute_order == AttributeOrder::by_creation)
    check(
        H5Pset_attr_creation_order(properties.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED),
        what);
  return own(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, properties.get(), H5P_DEFAULT), H5Gclose,
             what);
}

Handle open_group(hid_t parent, const std::string& name) {
  if (!has_member(parent, name)) throw DataError("missing " + describe_group(parent, name));
  return own(H5Gopen2(parent, name.c_str(), H5P_DEFAULT), H5Gclose,
             "cannot open " + describe_group(parent, name));
}

bool has_member(hid_t group, const std::string& name) {
  const htri_t exists = H5Lexists(group, name.c_str(), H5P_DEFAULT);
  check(exists, "cannot look up '" + name + "' in " + object_path(group));
  return exists > 0;
}

std::vector<std::string> member_names(hid_t group) {
  const std::string what = "cannot list the members of " + object_path(group);
  H5G_info_t info;
  check(H5Gget_info(group, &info), what);
  const H5_index_t order = tracks_link_order(group) ? H5_INDEX_CRT_ORDER : H5_INDEX_NAME;
  std::vector<std::string> names;
  names.reserve(info.nlinks);
  for (hsize_t index = 0; index < info.nlinks; ++index)
    names.push_back(member_name(group, order, index, what));
  return names;
}

Handle open_member(hid_t group, const std::string& name) {
  return own(H5Oopen(group, name.c_str(), H5P_DEFAULT), H5Oclose,
             "cannot open '" + name + "' in " + object_path(group));
}

}  // namespace runner::results::detail
