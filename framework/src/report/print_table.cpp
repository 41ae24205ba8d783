// print_table: columns padded to their widest cell, numbers right-aligned so digits line up,
// then the notes the cells point to.
#include "report/print_table.hpp"

#include <algorithm>

#include "report/cells.hpp"

namespace runner::report {

namespace {

constexpr const char* kGap = "  ";

std::vector<size_t> column_widths(const Table& table) {
  std::vector<size_t> widths;
  for (const std::string& column : table.columns) widths.push_back(display_width(column));
  for (const std::vector<std::string>& row : table.rows)
    for (size_t column = 0; column < widths.size(); ++column)
      widths[column] = std::max(widths[column], display_width(row[column]));
  return widths;
}

std::string padded(const std::string& cell, size_t width, bool right_aligned) {
  const std::string padding(width - display_width(cell), ' ');
  return right_aligned ? padding + cell : cell + padding;
}

void print_line(const std::vector<std::string>& cells, const std::vector<size_t>& widths,
                const std::vector<bool>& right_aligned, std::ostream& out) {
  std::string line;
  for (size_t column = 0; column < cells.size(); ++column) {
    if (column > 0) line += kGap;
    line += padded(cells[column], widths[column], right_aligned[column]);
  }
  line.erase(line.find_last_not_of(' ') + 1);
  out << line << '\n';
}

}  // namespace

void print_table(const Table& table, std::ostream& out) {
  const std::vector<size_t> widths = column_widths(table);
  std::vector<bool> right_aligned = table.right_aligned;
  right_aligned.resize(widths.size(), false);
  std::vector<std::string> rules;
  for (size_t width : widths) rules.emplace_back(width, '-');
  print_line(table.columns, widths, right_aligned, out);
  print_line(rules, widths, right_aligned, out);
  for (const std::vector<std::string>& row : table.rows)
    print_line(row, widths, right_aligned, out);
  for (size_t i = 0; i < table.notes.size(); ++i)
    out << '(' << i + 1 << ") " << table.notes[i] << '\n';
}

}  // namespace runner::report
