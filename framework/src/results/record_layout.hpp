// The epoch and step records' fields as their series are named: one 1-D dataset per field in
// the results file, one column per field in the HTML report's data. HDF5-free, so that readers
// of records name the fields as the file does.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "results/results.hpp"

namespace runner::results {

template <typename Record>
struct RecordLayout {
  const char* counter_name;  // the int64 column: "epoch" or "step"
  int64_t Record::*counter;
  std::vector<std::pair<const char*, double Record::*>> values;  // the float64 columns
  // Float64 columns added after the first format: a file without them reads them as the
  // record's default (0, or NaN for what may go unmeasured).
  std::vector<std::pair<const char*, double Record::*>> added_values = {};
};

const RecordLayout<EpochRecord>& epoch_layout();
const RecordLayout<StepRecord>& step_layout();

}  // namespace runner::results
