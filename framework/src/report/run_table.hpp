// The runs of a results file as typed columns: what `runner report --csv` writes, and what the
// terminal table formats. Numbers stay numbers here (seconds, bytes, fractions); only the
// terminal turns them into "12.3 s" or "87.31%".
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "results/results.hpp"

namespace runner::report {

// What a column's numbers measure, so the terminal knows how to write them.
enum class Unit { text, count, seconds, bytes, fraction, per_second, number };

// Empty (nothing measured), or the value as the results file holds it.
using Cell = std::variant<std::monostate, bool, int64_t, double, std::string>;

struct Column {
  std::string name;   // the CSV header and the name `--columns` takes: time_s, test_accuracy
  std::string title;  // the terminal's header: time, test acc, batch_size (a swept key's last
                      // part when no other swept key ends so)
  Unit unit = Unit::text;
  bool swept = false;  // a key of the sweep: the terminal always shows it
};

struct RunTable {
  std::vector<Column> columns;
  std::vector<std::vector<Cell>> rows;
};

// Every column some run has a value for: run_id, group, label, the swept keys (union over the
// runs, in first-seen order), status, epochs, restarts after failures and the time they lost,
// then times, throughput, ranks and batches,
// memory, accuracy and the error. Columns no run has (phases, plan, perplexity, MFU, the
// error) are left out. Numbers come from the summary, else from the finished epochs.
RunTable run_table(const std::vector<results::RunRecord>& runs);

// The index of the column named `name`, or -1.
int column_index(const RunTable& table, const std::string& name);

}  // namespace runner::report
