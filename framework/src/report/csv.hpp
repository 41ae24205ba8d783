// A run table as CSV, for `runner report --csv`.
#pragma once

#include <ostream>

#include "report/run_table.hpp"

namespace runner::report {

// RFC 4180 (quoting, CRLF); plain numbers: seconds, bytes, fractions; a header of the names.
void write_csv(const RunTable& table, std::ostream& out);

}  // namespace runner::report
