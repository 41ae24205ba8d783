// Reading a results file back: every run, as far as it can be read.
#pragma once

#include <string>
#include <vector>

#include "results/results.hpp"

namespace runner::results {

// Every run in the file, in creation order. Throws DataError naming the file when it is
// missing, not HDF5, or not a runner results file. A damaged run does not hide the others:
// it comes back with what could be read, and RunRecord::damage saying what could not.
std::vector<RunRecord> read_runs(const std::string& path);

}  // namespace runner::results
