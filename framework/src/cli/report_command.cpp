// `runner report`: a results file's runs as a terminal table or CSV, with chosen columns.
#include "cli/report_command.hpp"

#include <fstream>
#include <iostream>

#include "report/csv.hpp"
#include "report/print_table.hpp"
#include "report/run_values.hpp"
#include "report/terminal_table.hpp"
#include "results/read_runs.hpp"
#include "runner/errors.hpp"

namespace runner::cli {

namespace {

void write_csv_file(const report::RunTable& table, const std::string& path) {
  std::ofstream csv(path);
  if (!csv) throw DataError("cannot write " + path);
  report::write_csv(table, csv);
  std::cout << "wrote " << table.rows.size() << " run(s) to " << path << "\n";
}

}  // namespace

int report_command(const ReportOptions& options) {
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
