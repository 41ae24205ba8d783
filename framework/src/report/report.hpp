// The comparison table of runs: what `runner report` prints, and what a sweep prints at its end.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "results/results.hpp"

namespace runner::report {

struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
};

// Columns: "run" (the label, else the group name), the swept keys (union over the runs, in
// first-seen order; "" where a run has none), "status", "epochs", "time", "peak mem",
// "test acc", and "note" (the error on one line, and any damage) only when some run has one.
// Numbers come from the summary, else (a killed or failed run) from the recorded epochs.
Table comparison_table(const std::vector<results::RunRecord>& runs);

void print_table(const Table& table, std::ostream& out);  // aligned, for a terminal
void write_csv(const Table& table, std::ostream& out);    // RFC 4180: quoting, CRLF

}  // namespace runner::report
