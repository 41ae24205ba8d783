// terminal_table: the columns that answer a comparison first, then what still fits the width.
#include "report/terminal_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "report/cells.hpp"
#include "report/run_values.hpp"
#include "runner/errors.hpp"

namespace runner::report {

namespace {

// Shown whenever the table has them.
const std::set<std::string>& essential_columns() {
  static const std::set<std::string> names{"group",       "time_s",        "samples_per_s",
                                           "step_time_s", "test_accuracy", "test_perplexity",
                                           "note"};
  return names;
}

// Shown when some run had several ranks: how the batch was split, and the waits for the others.
const std::set<std::string>& distributed_columns() {
  static const std::set<std::string> names{"world_size", "local_batch", "global_batch",
                                           "communication_s"};
  return names;
}

// Added in this order while the table fits.
const std::vector<std::string>& optional_columns() {
  static const std::vector<std::string> names{"status",
                                              "epochs",
                                              "peak_memory_bytes",
                                              "gpu_utilization",
                                              "gpu_memory_bytes",
                                              "data_wait_s",
                                              "compute_s",
                                              "estimated_memory_bytes",
                                              "tensor_peak_bytes",
                                              "state_memory_bytes",
                                              "forward_s",
                                              "backward_s",
                                              "saved_activation_bytes",
                                              "tflops",
                                              "mfu",
                                              "restarts",
                                              "time_lost_s",
                                              "communication_max_s",
                                              "slowest_rank"};
  return names;
}

// Seconds below one as milliseconds (a step takes a few), in three digits at most: a column of
// times keeps its width whatever the machine's speed.
std::string format_seconds(double seconds) {
  if (seconds > 0 && seconds < 0.1) return fmt::format("{:.1f} ms", seconds * 1000);
  if (seconds > 0 && seconds < 1) return fmt::format("{:.0f} ms", seconds * 1000);
  return format_duration(seconds);
}

std::string format_double(double value, Unit unit) {
  switch (unit) {
    case Unit::seconds: return format_seconds(value);
    case Unit::bytes: return format_mebibytes(value);
    case Unit::fraction: return format_percent(value);
    case Unit::per_second: return format_number(value);
    case Unit::count: return fmt::format("{:.0f}", value);
    case Unit::number:
    case Unit::text: return format_number(value);
  }
  return "";
}

std::string format_cell(const Cell& cell, Unit unit) {
  if (const auto* value = std::get_if<double>(&cell)) return format_double(*value, unit);
  if (const auto* value = std::get_if<int64_t>(&cell)) return std::to_string(*value);
  if (const auto* value = std::get_if<bool>(&cell)) return *value ? "true" : "false";
  if (const auto* value = std::get_if<std::string>(&cell)) return *value;
  return "";
}

bool several_ranks(const RunTable& table) {
  const int column = column_index(table, "world_size");
  if (column < 0) return false;
  return std::any_of(table.rows.begin(), table.rows.end(), [column](const auto& row) {
    const auto* ranks = std::get_if<int64_t>(&row[column]);
    return ranks && *ranks > 1;
  });
}

// A column whose filled cells are all numbers (a run id of digits is still text).
bool holds_numbers(const RunTable& table, size_t column) {
  bool any_number = false;
  for (const std::vector<Cell>& row : table.rows) {
    const Cell& cell = row[column];
    if (std::holds_alternative<std::monostate>(cell)) continue;
    if (!std::holds_alternative<int64_t>(cell) && !std::holds_alternative<double>(cell))
      return false;
    any_number = true;
  }
  return any_number;
}

// Every run completed: the status column says nothing then.
bool all_completed(const RunTable& table) {
  const int column = column_index(table, "status");
  return std::all_of(table.rows.begin(), table.rows.end(), [column](const auto& row) {
    const auto* status = std::get_if<std::string>(&row[column]);
    return status && *status == "completed";
  });
}

size_t table_width(const Table& table) {
  size_t width = 0;
  for (size_t column = 0; column < table.columns.size(); ++column) {
    size_t widest = display_width(table.columns[column]);
    for (const auto& row : table.rows) widest = std::max(widest, display_width(row[column]));
    width += widest + (column > 0 ? 2 : 0);
  }
  return width;
}

// The columns of `table` whose names are in `chosen`, in the table's order.
Table formatted_subset(const RunTable& table, const std::set<std::string>& chosen) {
  std::vector<std::string> names;
  for (const Column& column : table.columns)
    if (chosen.count(column.name)) names.push_back(column.name);
  return formatted(select_columns(table, names));
}

// The notes (a failed run's error, a skipped run's reason) below the table, each once, and
// "(1)" in their cells: rows stay short however long the reasons, and alike ones are one.
Table with_footnotes(Table table) {
  const auto note = std::find(table.columns.begin(), table.columns.end(), "note");
  if (note == table.columns.end()) return table;
  const auto column = static_cast<size_t>(note - table.columns.begin());
  for (std::vector<std::string>& row : table.rows) {
    std::string& cell = row[column];
    if (cell.empty()) continue;
    auto known = std::find(table.notes.begin(), table.notes.end(), cell);
    if (known == table.notes.end()) known = table.notes.insert(known, cell);
    cell = fmt::format("({})", known - table.notes.begin() + 1);
  }
  return table;
}

std::string known_names(const RunTable& table) {
  std::string names;
  for (const Column& column : table.columns) names += (names.empty() ? "" : ", ") + column.name;
  return names;
}

}  // namespace

RunTable select_columns(const RunTable& table, const std::vector<std::string>& names) {
  RunTable selected;
  std::vector<int> indexes;
  for (const std::string& name : names) {
    const int index = column_index(table, name);
    if (index < 0)
      throw ConfigError("no column '" + name + "' in these results",
                        "columns: " + known_names(table));
    indexes.push_back(index);
    selected.columns.push_back(table.columns[index]);
  }
  for (const std::vector<Cell>& row : table.rows) {
    std::vector<Cell> cells;
    for (int index : indexes) cells.push_back(row[index]);
    selected.rows.push_back(std::move(cells));
  }
  return selected;
}

Table formatted(const RunTable& table) {
  Table result;
  for (size_t i = 0; i < table.columns.size(); ++i) {
    result.columns.push_back(table.columns[i].title);
    result.right_aligned.push_back(holds_numbers(table, i));
  }
  for (const std::vector<Cell>& row : table.rows) {
    std::vector<std::string> cells;
    for (size_t i = 0; i < row.size(); ++i)
      cells.push_back(format_cell(row[i], table.columns[i].unit));
    result.rows.push_back(std::move(cells));
  }
  return result;
}

Table terminal_table(const RunTable& table, const std::vector<std::string>& study, size_t width) {
  std::set<std::string> chosen = essential_columns();
  chosen.insert(study.begin(), study.end());
  if (!all_completed(table)) chosen.insert("status");
  for (const Column& column : table.columns)
    if (column.swept) chosen.insert(column.name);
  if (several_ranks(table))
    chosen.insert(distributed_columns().begin(), distributed_columns().end());
  // A swept train.batch_size is the global batch already.
  if (column_index(table, "train.batch_size") >= 0) chosen.erase("global_batch");
  for (const std::string& name : optional_columns()) {
    if (column_index(table, name) < 0 || chosen.count(name)) continue;
    chosen.insert(name);
    if (table_width(with_footnotes(formatted_subset(table, chosen))) > width) chosen.erase(name);
  }
  return with_footnotes(formatted_subset(table, chosen));
}

Table comparison_table(const std::vector<results::RunRecord>& runs) {
  return terminal_table(run_table(runs), study_columns(runs));
}

}  // namespace runner::report
