// run_table: one row per run, one typed column per number the results hold for some run.
#include "report/run_table.hpp"

#include <algorithm>
#include <functional>
#include <optional>

#include "report/run_values.hpp"

namespace runner::report {

namespace {

using results::RunRecord;

// A column and how to read its cell from one run.
struct ColumnSource {
  Column column;
  std::function<Cell(const RunRecord&)> cell;
};

// "killed?" for a run left running by a writer that is gone: no end was ever recorded.
std::string status_text(const RunRecord& run) {
  return run.abandoned ? "killed?" : results::status_name(run.status);
}

template <typename Number>
Cell cell_of(const std::optional<Number>& value) {
  if (!value) return std::monostate{};
  return *value;
}

template <typename Number>
ColumnSource measured(const char* name, const char* title, Unit unit,
                      std::optional<Number> (*value)(const RunRecord&)) {
  return {{name, title, unit}, [value](const RunRecord& run) { return cell_of(value(run)); }};
}

std::vector<ColumnSource> leading_sources() {
  return {
      {{"run_id", "run id", Unit::text},
       [](const RunRecord& run) { return Cell(run.header.run_id); }},
      {{"group", "run", Unit::text}, [](const RunRecord& run) { return Cell(run.group); }},
      {{"label", "label", Unit::text}, [](const RunRecord& run) { return Cell(run.header.label); }},
  };
}

std::vector<std::string> swept_keys(const std::vector<RunRecord>& runs) {
  std::vector<std::string> keys;
  for (const RunRecord& run : runs)
    for (const auto& [key, value] : run.header.sweep_point)
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  return keys;
}

// The key's last part ("batch_size" for train.batch_size) when no other swept key ends so:
// a narrower header; the name stays the dotted key.
std::string sweep_title(const std::string& key, const std::vector<std::string>& keys) {
  const auto last_part = [](const std::string& dotted) {
    return dotted.substr(dotted.rfind('.') + 1);
  };
  const std::string title = last_part(key);
  const auto same = std::count_if(keys.begin(), keys.end(), [&](const std::string& other) {
    return last_part(other) == title;
  });
  return same == 1 ? title : key;
}

ColumnSource sweep_source(const std::string& key, const std::string& title) {
  return {{key, title, Unit::text, true}, [key](const RunRecord& run) {
            for (const auto& [swept_key, value] : run.header.sweep_point)
              if (swept_key == key) return std::visit([](const auto& v) { return Cell(v); }, value);
            return Cell();
          }};
}

std::vector<ColumnSource> measured_sources() {
  return {
      {{"status", "status", Unit::text},
       [](const RunRecord& run) { return Cell(status_text(run)); }},
      {{"epochs", "epochs", Unit::count},
       [](const RunRecord& run) {
         return Cell(run.summary ? run.summary->epochs_completed
                                 : static_cast<int64_t>(run.epochs.size()));
       }},
      {{"restarts", "restarts", Unit::count},
       [](const RunRecord& run) {
         return run.restarts.empty() ? Cell() : Cell(static_cast<int64_t>(run.restarts.size()));
       }},
      {{"time_lost_s", "time lost", Unit::seconds},
       [](const RunRecord& run) {
         double lost = 0;
         for (const auto& restart : run.restarts) lost += restart.time_lost_s;
         return run.restarts.empty() ? Cell() : Cell(lost);
       }},
      measured("time_s", "time", Unit::seconds, total_time_s),
      measured("samples_per_s", "samples/s", Unit::per_second, samples_per_s),
      measured("step_time_s", "step time", Unit::seconds, step_time_s),
      measured("data_wait_s", "data wait", Unit::seconds, data_wait_s),
      measured("compute_s", "compute", Unit::seconds, compute_s),
      measured("forward_s", "forward", Unit::seconds, forward_s),
      measured("backward_s", "backward", Unit::seconds, backward_s),
      {{"world_size", "ranks", Unit::count},
       [](const RunRecord& run) { return Cell(world_size(run)); }},
      measured("local_batch", "local batch", Unit::count, local_batch),
      measured("global_batch", "global batch", Unit::count, global_batch),
      measured("communication_s", "comm", Unit::seconds, communication_s),
      measured("communication_max_s", "comm max", Unit::seconds, communication_max_s),
      measured("slowest_rank", "slowest", Unit::count, slowest_rank),
      measured("saved_activation_bytes", "saved act", Unit::bytes, saved_activation_bytes),
      measured("peak_memory_bytes", "peak mem", Unit::bytes, peak_memory_bytes),
      measured("gpu_utilization", "GPU util", Unit::fraction, gpu_utilization),
      measured("gpu_memory_bytes", "GPU mem", Unit::bytes, gpu_memory_bytes),
      measured("estimated_memory_bytes", "est mem", Unit::bytes, estimated_memory_bytes),
      measured("tensor_peak_bytes", "tensor peak", Unit::bytes, tensor_peak_bytes),
      measured("state_memory_bytes", "state mem", Unit::bytes, state_memory_bytes),
      measured("tflops", "TFLOPS", Unit::number, tflops),
      measured("mfu", "MFU", Unit::fraction, mfu),
      measured("test_accuracy", "test acc", Unit::fraction, test_accuracy),
      measured("test_perplexity", "test ppl", Unit::number, test_perplexity),
      {{"note", "note", Unit::text},
       [](const RunRecord& run) {
         const std::string note = note_of(run);
         return note.empty() ? Cell() : Cell(note);
       }},
  };
}

bool is_empty(const Cell& cell) { return std::holds_alternative<std::monostate>(cell); }

// The leading columns and the swept keys always; a measured column only when some run has it.
bool always_shown(const Column& column) {
  return column.name == "status" || column.name == "epochs" || column.name == "world_size";
}

}  // namespace

RunTable run_table(const std::vector<RunRecord>& runs) {
  std::vector<ColumnSource> sources = leading_sources();
  const std::vector<std::string> keys = swept_keys(runs);
  for (const std::string& key : keys) sources.push_back(sweep_source(key, sweep_title(key, keys)));
  const size_t fixed = sources.size();
  for (ColumnSource& source : measured_sources()) sources.push_back(std::move(source));

  RunTable table;
  std::vector<std::vector<Cell>> columns;
  for (size_t i = 0; i < sources.size(); ++i) {
    std::vector<Cell> cells;
    for (const RunRecord& run : runs) cells.push_back(sources[i].cell(run));
    const bool any_value =
        std::any_of(cells.begin(), cells.end(), [](const Cell& cell) { return !is_empty(cell); });
    if (i < fixed || always_shown(sources[i].column) || any_value) {
      table.columns.push_back(sources[i].column);
      columns.push_back(std::move(cells));
    }
  }
  table.rows.assign(runs.size(), {});
  for (const std::vector<Cell>& cells : columns)
    for (size_t row = 0; row < runs.size(); ++row) table.rows[row].push_back(cells[row]);
  return table;
}

int column_index(const RunTable& table, const std::string& name) {
  for (size_t i = 0; i < table.columns.size(); ++i)
    if (table.columns[i].name == name) return static_cast<int>(i);
  return -1;
}

}  // namespace runner::report
