// A table printed aligned, for a terminal.
#pragma once

#include <ostream>

#include "report/table.hpp"

namespace runner::report {

void print_table(const Table& table, std::ostream& out);

}  // namespace runner::report
