// comparison_table: one row per run. A run's numbers come from its summary when it has one,
// else (killed or failed before the end) from the epochs it finished.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <utility>

#include "report/cells.hpp"
#include "report/report.hpp"

namespace runner::report {

namespace {

using results::RunRecord;

constexpr size_t kNoteChars = 80;

std::vector<std::string> swept_keys(const std::vector<RunRecord>& runs) {
  std::vector<std::string> keys;
  for (const RunRecord& run : runs)
    for (const auto& [key, value] : run.header.sweep_point)
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  return keys;
}

bool has_note(const RunRecord& run) { return !run.error.empty() || !run.damage.empty(); }

bool any_note(const std::vector<RunRecord>& runs) {
  return std::any_of(runs.begin(), runs.end(), has_note);
}

// The error's first line, then what of the run could not be read from the file.
std::string note_of(const RunRecord& run) {
  std::string note = one_line(run.error, kNoteChars);
  if (!run.damage.empty()) {
    if (!note.empty()) note += "; ";
    note += one_line("damaged: " + run.damage, kNoteChars);
  }
  return note;
}

std::string sweep_value(const RunRecord& run, const std::string& key) {
  for (const auto& [swept_key, value] : run.header.sweep_point)
    if (swept_key == key) return value;
  return "";
}

std::string run_name(const RunRecord& run) {
  return run.header.label.empty() ? run.group : run.header.label;
}

int64_t epochs_done(const RunRecord& run) {
  return run.summary ? run.summary->epochs_completed : static_cast<int64_t>(run.epochs.size());
}

std::optional<double> total_time_s(const RunRecord& run) {
  if (run.summary) return run.summary->total_time_s;
  if (run.epochs.empty()) return std::nullopt;
  double total = 0;
  for (const results::EpochRecord& epoch : run.epochs) total += epoch.duration_s;
  return total;
}

// 0 means nothing was measured (e.g. a device without memory statistics).
double peak_memory_bytes(const RunRecord& run) {
  double peak = 0;
  if (run.summary && !run.summary->peak_memory_per_rank_bytes.empty()) {
    for (double bytes : run.summary->peak_memory_per_rank_bytes) peak = std::max(peak, bytes);
    return peak;
  }
  for (const results::EpochRecord& epoch : run.epochs)
    peak = std::max(peak, epoch.peak_memory_bytes);
  return peak;
}

// Training-time split of the finished epochs: waiting for batches against the rest.
std::pair<double, double> data_wait_and_compute_s(const RunRecord& run) {
  double wait = 0, compute = 0;
  for (const results::EpochRecord& epoch : run.epochs) {
    wait += epoch.data_wait_s;
    compute += epoch.compute_s;
  }
  return {wait, compute};
}

// The strategy's phase times over the finished epochs, and the largest saved-activation memory.
struct Phases {
  double forward_s = 0, backward_s = 0, activation_bytes = 0;
};

Phases phases_of(const RunRecord& run) {
  Phases phases;
  for (const results::EpochRecord& epoch : run.epochs) {
    phases.forward_s += epoch.forward_s;
    phases.backward_s += epoch.backward_s;
    phases.activation_bytes = std::max(phases.activation_bytes, epoch.activation_memory_bytes);
  }
  return phases;
}

bool any_phases(const std::vector<RunRecord>& runs) {
  return std::any_of(runs.begin(), runs.end(),
                     [](const RunRecord& run) { return phases_of(run).forward_s > 0; });
}

void add_phase_cells(const RunRecord& run, std::vector<std::string>& row) {
  const Phases phases = phases_of(run);
  const bool measured = phases.forward_s > 0;
  row.push_back(measured ? format_duration(phases.forward_s) : "");
  row.push_back(measured ? format_duration(phases.backward_s) : "");
  row.push_back(phases.activation_bytes > 0 ? format_mebibytes(phases.activation_bytes) : "");
}

bool is_language_model(const RunRecord& run) {
  return run.summary && run.summary->task == "language_modeling";
}

bool any_language_model(const std::vector<RunRecord>& runs) {
  return std::any_of(runs.begin(), runs.end(), is_language_model);
}

// Perplexity per token: exp of the final mean test loss.
std::string test_perplexity(const RunRecord& run) {
  if (!is_language_model(run)) return "";
  return fmt::format("{:.2f}", std::exp(run.summary->final_test_loss));
}

std::optional<double> test_accuracy(const RunRecord& run) {
  if (run.summary) return run.summary->final_test_accuracy;
  if (run.epochs.empty()) return std::nullopt;
  return run.epochs.back().test_accuracy;
}

int world_size_of(const RunRecord& run) {
  const auto it = run.header.environment.find("world_size");
  return it == run.header.environment.end() ? 1 : std::max(1, std::atoi(it->second.c_str()));
}

bool any_ranks(const std::vector<RunRecord>& runs) {
  return std::any_of(runs.begin(), runs.end(),
                     [](const RunRecord& run) { return world_size_of(run) > 1; });
}

// Each rank's peak ("75.1 MiB / 74.9 MiB") when the run had several, else the one.
std::string peak_memory_cell(const RunRecord& run, bool per_rank) {
  if (per_rank && run.summary && run.summary->peak_memory_per_rank_bytes.size() > 1) {
    std::string cell;
    for (double bytes : run.summary->peak_memory_per_rank_bytes)
      cell += (cell.empty() ? "" : " / ") + format_mebibytes(bytes);
    return cell;
  }
  const double peak = peak_memory_bytes(run);
  return peak > 0 ? format_mebibytes(peak) : "";
}

bool has_plan(const RunRecord& run) {
  return run.summary && !run.summary->estimated_memory_per_rank_bytes.empty();
}

bool any_plan(const std::vector<RunRecord>& runs) {
  return std::any_of(runs.begin(), runs.end(), has_plan);
}

bool any_mfu(const std::vector<RunRecord>& runs) {
  return std::any_of(runs.begin(), runs.end(),
                     [](const RunRecord& run) { return run.summary && run.summary->mfu > 0; });
}

// Each rank's value ("75.1 MiB / 74.9 MiB") when per_rank, else the largest.
std::string per_rank_cell(const std::vector<double>& bytes, bool per_rank) {
  if (bytes.empty()) return "";
  if (!per_rank || bytes.size() == 1)
    return format_mebibytes(*std::max_element(bytes.begin(), bytes.end()));
  std::string cell;
  for (double b : bytes) cell += (cell.empty() ? "" : " / ") + format_mebibytes(b);
  return cell;
}

// The run plan's peak beside the tensors' measured one, what stays held between steps (the
// model state), and the achieved throughput.
void add_plan_cells(const RunRecord& run, bool per_rank, bool with_mfu,
                    std::vector<std::string>& row) {
  if (!has_plan(run)) {
    row.insert(row.end(), with_mfu ? 5 : 4, "");
    return;
  }
  row.push_back(per_rank_cell(run.summary->estimated_memory_per_rank_bytes, per_rank));
  row.push_back(per_rank_cell(run.summary->tensor_peak_per_rank_bytes, per_rank));
  row.push_back(per_rank_cell(run.summary->state_memory_per_rank_bytes, per_rank));
  row.push_back(fmt::format("{:.3f}", run.summary->tflops));
  if (with_mfu) row.push_back(fmt::format("{:.1f}%", 100 * run.summary->mfu));
}

struct Layout {
  std::vector<std::string> keys;
  bool with_perplexity = false;
  bool with_note = false;
  bool with_phases = false;
  bool with_ranks = false;  // some run had several ranks: their count, and peaks per rank
  bool with_plan = false;   // estimated and measured tensor memory, TFLOPS
  bool with_mfu = false;
};

std::vector<std::string> row_of(const RunRecord& run, const Layout& layout) {
  const auto& keys = layout.keys;
  std::vector<std::string> row{run_name(run)};
  for (const std::string& key : keys) row.push_back(sweep_value(run, key));
  row.emplace_back(results::status_name(run.status));
  row.push_back(std::to_string(epochs_done(run)));
  const std::optional<double> time = total_time_s(run);
  row.push_back(time ? format_duration(*time) : "");
  const auto [wait, compute] = data_wait_and_compute_s(run);
  row.push_back(run.epochs.empty() ? "" : format_duration(wait));
  row.push_back(run.epochs.empty() ? "" : format_duration(compute));
  if (layout.with_phases) add_phase_cells(run, row);
  if (layout.with_ranks) row.push_back(std::to_string(world_size_of(run)));
  row.push_back(peak_memory_cell(run, layout.with_ranks));
  if (layout.with_plan) add_plan_cells(run, layout.with_ranks, layout.with_mfu, row);
  const std::optional<double> accuracy = test_accuracy(run);
  row.push_back(accuracy ? format_percent(*accuracy) : "");
  if (layout.with_perplexity) row.push_back(test_perplexity(run));
  if (layout.with_note) row.push_back(note_of(run));
  return row;
}

}  // namespace

Table comparison_table(const std::vector<RunRecord>& runs) {
  const Layout layout{swept_keys(runs), any_language_model(runs), any_note(runs),
                      any_phases(runs), any_ranks(runs), any_plan(runs),
                      any_plan(runs) && any_mfu(runs)};
  Table table;
  table.columns.emplace_back("run");
  table.columns.insert(table.columns.end(), layout.keys.begin(), layout.keys.end());
  for (const char* column : {"status", "epochs", "time", "data wait", "compute"})
    table.columns.emplace_back(column);
  if (layout.with_phases)
    for (const char* column : {"forward", "backward", "saved act"})
      table.columns.emplace_back(column);
  if (layout.with_ranks) table.columns.emplace_back("ranks");
  table.columns.emplace_back(layout.with_ranks ? "peak mem per rank" : "peak mem");
  if (layout.with_plan)
    for (const char* column : {"est mem", "tensor peak", "state mem", "TFLOPS"})
      table.columns.emplace_back(column);
  if (layout.with_mfu) table.columns.emplace_back("MFU");
  table.columns.emplace_back("test acc");
  if (layout.with_perplexity) table.columns.emplace_back("test ppl");
  if (layout.with_note) table.columns.emplace_back("note");
  for (const RunRecord& run : runs) table.rows.push_back(row_of(run, layout));
  return table;
}

}  // namespace runner::report
