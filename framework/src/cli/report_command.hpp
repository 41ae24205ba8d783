// `runner report`: the comparison table of a results file, or its CSV.
// Returns the process exit code; errors are thrown as runner::Error.
#pragma once

#include <string>
#include <vector>

namespace runner::cli {

struct ReportOptions {
  std::string file;
  bool csv = false;                  // CSV instead of the terminal's table
  std::string csv_path;              // where to write the CSV; empty: standard output
  bool force = false;                // --force: replace a file that holds no CSV of a report
  std::vector<std::string> columns;  // run_table's names; empty: every column (CSV) or
                                     // those that fit (terminal)
};

int report_command(const ReportOptions& options);

}  // namespace runner::cli
