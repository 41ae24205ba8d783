// `runner report`: a results file's runs as a terminal table or CSV, with chosen columns, or
// as an HTML page.
#include "cli/report_command.hpp"

#include <fstream>
#include <iostream>
#include <sstream>

#include "common/output_path.hpp"

#include "report/csv.hpp"
#include "report/html/report_page.hpp"
#include "report/print_table.hpp"
#include "report/run_values.hpp"
#include "report/terminal_table.hpp"
#include "results/read_runs.hpp"
#include "runner/errors.hpp"

namespace runner::cli {

namespace {

// A CSV this command wrote before: a first line of column names (plain ASCII) ended as
// RFC 4180 ends records, with CRLF.
bool holds_report_csv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string first_line;
  if (!std::getline(in, first_line) || first_line.size() < 2 || first_line.back() != '\r')
    return false;
  first_line.pop_back();
  for (unsigned char c : first_line)
    if (c < 0x20 || c >= 0x7f) return false;
  return true;
}

void check_csv_path(const ReportOptions& options) {
  check_output_file({"--csv",
                     options.csv_path,
                     {{options.file, "the results file this report reads"}},
                     options.force,
                     holds_report_csv});
}

void write_csv_file(const report::RunTable& table, const std::string& path) {
  std::ostringstream csv;
  report::write_csv(table, csv);
  write_file_whole(path, csv.str());
  std::cout << "wrote " << table.rows.size() << " run(s) to " << path << "\n";
}

int write_html_page(const ReportOptions& options) {
  const report::html::WrittenPage page =
      report::html::write_report_page({options.file, options.html_path, options.force});
  std::cout << "wrote " << page.path << " (" << page.runs << " run(s))\n";
  return 0;
}

}  // namespace

int report_command(const ReportOptions& options) {
  if (options.html) return write_html_page(options);
  if (options.csv && !options.csv_path.empty()) check_csv_path(options);
  const std::vector<results::RunRecord> runs = results::read_runs(options.file);
  report::RunTable table = report::run_table(runs);
  if (!options.columns.empty()) table = report::select_columns(table, options.columns);
  if (!options.csv) {
    const bool chosen = !options.columns.empty();
    report::print_table(chosen ? report::formatted(table)
                               : report::terminal_table(table, report::study_columns(runs)),
                        std::cout);
  } else if (options.csv_path.empty()) {
    report::write_csv(table, std::cout);
  } else {
    write_csv_file(table, options.csv_path);
  }
  return 0;
}

}  // namespace runner::cli
