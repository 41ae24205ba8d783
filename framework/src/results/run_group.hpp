// One run's group: header attributes, config, sweep, environment, status and the series.
#pragma once

#include <string>

#include <hdf5.h>

#include "results/results.hpp"

namespace runner::results::detail {

// Everything begin_run writes: the header, status "running" and the empty series.
void write_new_run(hid_t run_group, const RunHeader& header);

// `finished_at` is "" while the run is still running.
void write_run_status(hid_t run_group, Status status, const std::string& error,
                      const std::string& finished_at);

// A restart, in the run's group of restarts (made with the first).
void write_restart(hid_t run_group, const RestartRecord& restart);
void write_hang_report(hid_t run_group, const HangReportRecord& report);

// A group at the root is a run when it has a run_id attribute; users may add others.
bool is_run_group(hid_t group);

// What cannot be read (a writer killed mid-write) goes in RunRecord::damage, not thrown.
RunRecord read_run_group(hid_t run_group, const std::string& group_name);

}  // namespace runner::results::detail
