#include <fstream>
#include <iostream>

#include "cli/commands.hpp"
#include "report/report.hpp"
#include "runner/errors.hpp"

namespace runner::cli {

int report_command(const std::string& file, const std::string& csv_path) {
  auto table = report::comparison_table(results::read_runs(file));
  if (csv_path.empty()) {
    report::print_table(table, std::cout);
    return 0;
  }
  std::ofstream csv(csv_path);
  if (!csv) throw DataError("cannot write " + csv_path);
  report::write_csv(table, csv);
  std::cout << "wrote " << table.rows.size() << " run(s) to " << csv_path << "\n";
  return 0;
}

}  // namespace runner::cli
