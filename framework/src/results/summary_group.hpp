// The run's "summary" subgroup: scalar attributes for the totals, datasets for the lists.
#pragma once

#include <optional>

#include <hdf5.h>

#include "results/results.hpp"

namespace runner::results::detail {

void write_summary_group(hid_t run_group, const Summary& summary);

// std::nullopt when the run has no summary yet (still running, failed or killed).
std::optional<Summary> read_summary_group(hid_t run_group);

}  // namespace runner::results::detail
