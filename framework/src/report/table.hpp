// A table of cells as a terminal shows them: what `runner report` and a sweep's end print.
#pragma once

#include <string>
#include <vector>

namespace runner::report {

// Cells as a terminal shows them ("12.3 s", "182.4 MiB", "87.31%").
struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> right_aligned;  // per column: numbers, so digits line up; empty: none
  std::vector<std::string> notes;   // below the rows: what "(1)" in a cell stands for
};

}  // namespace runner::report
