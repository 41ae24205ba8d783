// `runner report`: the comparison table of a results file, its CSV, or its HTML page.
// Returns the process exit code; errors are thrown as runner::Error.
#pragma once

#include <string>
#include <vector>

namespace runner::cli {

struct ReportOptions {
  std::string file;
  bool csv = false;                  // CSV instead of the terminal's table
  std::string csv_path;              // where to write the CSV; empty: standard output
  bool html = false;                 // --html: the page of the results file
  std::string html_path;             // where to write it; empty: beside the results file
  bool force = false;                // --force: replace a file that holds no CSV or page of a
                                     // report
  std::vector<std::string> columns;  // run_table's names; empty: every column (CSV) or
                                     // those that fit (terminal)
};

int report_command(const ReportOptions& options);

}  // namespace runner::cli
