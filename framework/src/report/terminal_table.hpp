// The comparison table of runs for a terminal: the columns a study needs, as wide as it fits.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "report/run_table.hpp"
#include "report/table.hpp"
#include "results/results.hpp"

namespace runner::report {

inline constexpr size_t kTerminalWidth = 120;

// The columns named in `names` (run_table's names: time_s, test_accuracy, ...), in that order.
// Throws ConfigError naming an unknown one and listing those the table has.
RunTable select_columns(const RunTable& table, const std::vector<std::string>& names);

// The table for a terminal. Always the run's group name, the swept keys (once, as columns
// titled by their last part when that is unambiguous), time, samples/s, step time, test
// accuracy (perplexity for language models), the status when some run did not complete, the
// ranks and local and global batch when some run had several ranks (the global one unless
// train.batch_size is swept, which is that number), the note when some run
// has one (as "(1)", the notes below the rows, each once), and the columns named in `study` (those
// the table has); then, while the table stays within `width` characters, status, epochs, peak
// memory, data wait and compute, the run plan's memory, the phases, TFLOPS and MFU.
Table terminal_table(const RunTable& table, const std::vector<std::string>& study = {},
                     size_t width = kTerminalWidth);
// Every column of `table`, formatted: what `--columns` asked for.
Table formatted(const RunTable& table);

// terminal_table(run_table(runs), study_columns(runs)).
Table comparison_table(const std::vector<results::RunRecord>& runs);

}  // namespace runner::report
