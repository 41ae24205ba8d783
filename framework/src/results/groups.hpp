// Groups: creating them with their creation order tracked, opening, listing members.
#pragma once

#include <string>
#include <vector>

#include "results/hdf5_handle.hpp"

namespace runner::results::detail {

// Sweep keys keep the order the experiment declared them in; other groups need no order.
enum class AttributeOrder { by_name, by_creation };

Handle create_group(hid_t parent, const std::string& name,
                    AttributeOrder attribute_order = AttributeOrder::by_name);
Handle open_group(hid_t parent, const std::string& name);  // DataError when missing
bool has_member(hid_t group, const std::string& name);

// The group's members, in creation order when the group tracks it (runner's files do), else
// by name.
std::vector<std::string> member_names(hid_t group);

// Opens a member of any kind (group or dataset); H5Iget_type tells which.
Handle open_member(hid_t group, const std::string& name);

}  // namespace runner::results::detail
