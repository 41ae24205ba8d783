// run_values: a run's numbers from its summary when it has one, else (killed or failed before
// the end) from the epochs it finished.
#include "report/run_values.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <vector>

#include <toml++/toml.h>

#include "report/cells.hpp"

namespace runner::report {

namespace {

using results::EpochRecord;
using results::RunRecord;

constexpr size_t kNoteChars = 80;

// The sum of one epoch column over the finished epochs; nothing when there are none.
std::optional<double> epochs_sum(const RunRecord& run, double EpochRecord::*column) {
  if (run.epochs.empty()) return std::nullopt;
  double sum = 0;
  for (const EpochRecord& epoch : run.epochs) sum += epoch.*column;
  return sum;
}

std::optional<double> epochs_max(const RunRecord& run, double EpochRecord::*column) {
  double largest = 0;
  for (const EpochRecord& epoch : run.epochs) largest = std::max(largest, epoch.*column);
  return largest > 0 ? std::optional<double>(largest) : std::nullopt;
}

std::optional<double> largest(const std::vector<double>& per_rank) {
  if (per_rank.empty()) return std::nullopt;
  return *std::max_element(per_rank.begin(), per_rank.end());
}

// Phases are 0 when the strategy does not report them: then nothing was measured.
std::optional<double> phase_sum(const RunRecord& run, double EpochRecord::*column) {
  const std::optional<double> sum = epochs_sum(run, column);
  return sum && *sum > 0 ? sum : std::nullopt;
}

std::optional<toml::table> config_of(const RunRecord& run) {
  try {
    return toml::parse(run.header.config_toml);
  } catch (const toml::parse_error&) {
    return std::nullopt;
  }
}

std::optional<int64_t> config_integer(const RunRecord& run, const char* dotted_key) {
  const std::optional<toml::table> config = config_of(run);
  if (!config) return std::nullopt;
  return config->at_path(dotted_key).value<int64_t>();
}

// The ranks that split a step's batch: all of them, but a pipeline's stages share one.
int64_t data_parallel_ranks(const RunRecord& run) {
  const int64_t stages = config_integer(run, "strategy.stages").value_or(1);
  return std::max<int64_t>(1, world_size(run) / std::max<int64_t>(1, stages));
}

}  // namespace

std::optional<double> total_time_s(const RunRecord& run) {
  if (run.summary) return run.summary->total_time_s;
  return epochs_sum(run, &EpochRecord::duration_s);
}

std::optional<double> data_wait_s(const RunRecord& run) {
  return epochs_sum(run, &EpochRecord::data_wait_s);
}

std::optional<double> compute_s(const RunRecord& run) {
  return epochs_sum(run, &EpochRecord::compute_s);
}

std::optional<double> forward_s(const RunRecord& run) {
  return phase_sum(run, &EpochRecord::forward_s);
}

std::optional<double> backward_s(const RunRecord& run) {
  return phase_sum(run, &EpochRecord::backward_s);
}

std::optional<double> saved_activation_bytes(const RunRecord& run) {
  return epochs_max(run, &EpochRecord::activation_memory_bytes);
}

std::optional<double> communication_s(const RunRecord& run) {
  if (world_size(run) == 1) return std::nullopt;
  std::optional<double> sum;
  for (const EpochRecord& epoch : run.epochs)
    if (!std::isnan(epoch.communication_s)) sum = sum.value_or(0.0) + epoch.communication_s;
  return sum;
}

std::optional<double> communication_max_s(const RunRecord& run) {
  std::optional<double> sum;
  for (const EpochRecord& epoch : run.epochs)
    if (!std::isnan(epoch.communication_max_s)) sum = sum.value_or(0.0) + epoch.communication_max_s;
  return sum;
}

std::optional<int64_t> slowest_rank(const RunRecord& run) {
  std::map<int64_t, int> epochs_slowest;
  for (const EpochRecord& epoch : run.epochs)
    if (!std::isnan(epoch.slowest_rank)) ++epochs_slowest[static_cast<int64_t>(epoch.slowest_rank)];
  std::optional<int64_t> slowest;
  int most = 0;
  for (const auto& [rank, epochs] : epochs_slowest)
    if (epochs > most) slowest = rank, most = epochs;
  return slowest;
}

std::optional<double> gpu_utilization(const RunRecord& run) {
  double sum = 0;
  int measured = 0;
  for (const EpochRecord& epoch : run.epochs) {
    if (std::isnan(epoch.gpu_utilization)) continue;
    sum += epoch.gpu_utilization;
    ++measured;
  }
  if (measured == 0) return std::nullopt;
  return sum / measured;
}

std::optional<double> gpu_memory_bytes(const RunRecord& run) {
  std::optional<double> largest;
  for (const EpochRecord& epoch : run.epochs)
    if (!std::isnan(epoch.gpu_memory_used_bytes))
      largest = std::max(largest.value_or(0.0), epoch.gpu_memory_used_bytes);
  return largest;
}

std::optional<double> samples_per_s(const RunRecord& run) {
  const std::optional<double> sum = epochs_sum(run, &EpochRecord::samples_per_s);
  if (!sum) return std::nullopt;
  return *sum / static_cast<double>(run.epochs.size());
}

std::optional<double> step_time_s(const RunRecord& run) {
  if (run.steps.empty()) return std::nullopt;
  double sum = 0;
  for (const results::StepRecord& step : run.steps) sum += step.duration_s;
  return sum / static_cast<double>(run.steps.size());
}

int64_t world_size(const RunRecord& run) {
  const auto it = run.header.environment.find("world_size");
  if (it == run.header.environment.end()) return 1;
  return std::max<int64_t>(1, std::atoll(it->second.c_str()));
}

std::optional<int64_t> global_batch(const RunRecord& run) {
  return config_integer(run, "train.batch_size");
}

std::optional<int64_t> local_batch(const RunRecord& run) {
  const std::optional<int64_t> global = global_batch(run);
  if (!global) return std::nullopt;
  return *global / data_parallel_ranks(run);
}

std::optional<double> peak_memory_bytes(const RunRecord& run) {
  if (run.summary && !run.summary->peak_memory_per_rank_bytes.empty())
    return largest(run.summary->peak_memory_per_rank_bytes);
  return epochs_max(run, &EpochRecord::peak_memory_bytes);
}

std::optional<double> estimated_memory_bytes(const RunRecord& run) {
  if (!run.summary) return std::nullopt;
  return largest(run.summary->estimated_memory_per_rank_bytes);
}

std::optional<double> tensor_peak_bytes(const RunRecord& run) {
  if (!run.summary) return std::nullopt;
  return largest(run.summary->tensor_peak_per_rank_bytes);
}

std::optional<double> state_memory_bytes(const RunRecord& run) {
  if (!run.summary) return std::nullopt;
  return largest(run.summary->state_memory_per_rank_bytes);
}

std::optional<double> tflops(const RunRecord& run) {
  if (!run.summary || run.summary->tflops <= 0) return std::nullopt;
  return run.summary->tflops;
}

std::optional<double> mfu(const RunRecord& run) {
  if (!run.summary || run.summary->mfu <= 0) return std::nullopt;
  return run.summary->mfu;
}

std::optional<double> test_accuracy(const RunRecord& run) {
  if (run.summary) return run.summary->final_test_accuracy;
  if (run.epochs.empty()) return std::nullopt;
  return run.epochs.back().test_accuracy;
}

std::optional<double> test_perplexity(const RunRecord& run) {
  if (!run.summary || run.summary->task != "language_modeling") return std::nullopt;
  return std::exp(run.summary->final_test_loss);
}

std::optional<double> plan_step_s(const RunRecord& run) {
  const std::optional<toml::table> config = config_of(run);
  if (!config) return std::nullopt;
  const std::optional<double> predicted = config->at_path("experiment.plan_step_s").value<double>();
  return predicted && std::isfinite(*predicted) && *predicted > 0 ? predicted : std::nullopt;
}

std::vector<std::string> study_columns(const std::vector<RunRecord>& runs) {
  for (const RunRecord& run : runs) {
    const std::optional<toml::table> config = config_of(run);
    const toml::array* names = config ? config->at_path("experiment.table").as_array() : nullptr;
    if (!names || names->empty()) continue;
    std::vector<std::string> columns;
    for (const toml::node& name : *names)
      if (const auto text = name.value<std::string>()) columns.push_back(*text);
    return columns;
  }
  return {};
}

std::string note_of(const RunRecord& run) {
  std::string note = note_line(run.error, kNoteChars);
  if (!run.damage.empty()) {
    if (!note.empty()) note += "; ";
    note += note_line("damaged: " + run.damage, kNoteChars);
  }
  return note;
}

}  // namespace runner::report
