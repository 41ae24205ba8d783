// HDF5 1.10 (Debian 12's libhdf5) trusts the sizes in a global heap collection ("GCOL", where
// variable-length strings live): a free-space entry of size 0 makes it loop forever, an
// object that runs past the collection makes it copy from past its end. One damaged byte in a
// results file would hang or crash every command that reads it (both found by the results
// fuzzer). Each collection of the file is walked here as HDF5 walks it, before HDF5 opens it.
#pragma once

#include <string>

namespace runner::results::detail {

// Throws DataError naming the file and the collection's offset when HDF5 would not get
// through one of its global heap collections.
void check_global_heaps(const std::string& path);

}  // namespace runner::results::detail
