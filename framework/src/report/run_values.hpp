// One run's numbers as the comparison table shows them. Each returns nothing when the run
// did not measure it (a run killed before its first epoch, a strategy without phases).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "results/results.hpp"

namespace runner::report {

std::optional<double> total_time_s(const results::RunRecord& run);
std::optional<double> data_wait_s(const results::RunRecord& run);
std::optional<double> compute_s(const results::RunRecord& run);
std::optional<double> forward_s(const results::RunRecord& run);
std::optional<double> backward_s(const results::RunRecord& run);
std::optional<double> saved_activation_bytes(const results::RunRecord& run);

// The mean of the epochs' training throughput (samples of the training pass over its time).
std::optional<double> samples_per_s(const results::RunRecord& run);
// The mean duration of the logged optimizer steps.
std::optional<double> step_time_s(const results::RunRecord& run);

int64_t world_size(const results::RunRecord& run);
// train.batch_size of the resolved config (the global batch), and one rank's share of it.
std::optional<int64_t> global_batch(const results::RunRecord& run);
std::optional<int64_t> local_batch(const results::RunRecord& run);

// The largest over the ranks: the process's peak, the run plan's, the tensors' measured peak,
// and the tensors held between steps.
std::optional<double> peak_memory_bytes(const results::RunRecord& run);
std::optional<double> estimated_memory_bytes(const results::RunRecord& run);
std::optional<double> tensor_peak_bytes(const results::RunRecord& run);
std::optional<double> state_memory_bytes(const results::RunRecord& run);

// The seconds the ranks waited for collectives (their mean), over the epochs that measured
// it; nothing on one rank.
std::optional<double> communication_s(const results::RunRecord& run);
// The most one rank waited for collectives, over the epochs that measured it; and the rank the
// others waited for (the one that waited least) in most epochs, the lowest on a tie. Nothing
// on one rank.
std::optional<double> communication_max_s(const results::RunRecord& run);
std::optional<int64_t> slowest_rank(const results::RunRecord& run);

// NVML's readings over the epochs that have them: the mean utilisation (a fraction), and the
// most device memory in use.
std::optional<double> gpu_utilization(const results::RunRecord& run);
std::optional<double> gpu_memory_bytes(const results::RunRecord& run);

std::optional<double> tflops(const results::RunRecord& run);
std::optional<double> mfu(const results::RunRecord& run);  // only when the device's peak is known
std::optional<double> test_accuracy(const results::RunRecord& run);
std::optional<double> test_perplexity(const results::RunRecord& run);  // language models only

// The step `runner plan` predicted for the run: [experiment] plan_step_s of a plan's trial;
// nothing for a run the plan did not try.
std::optional<double> plan_step_s(const results::RunRecord& run);

// The columns an experiment's [experiment] table key names, from the runs' resolved configs
// (the first run that sets it); empty when none does.
std::vector<std::string> study_columns(const std::vector<results::RunRecord>& runs);

// The error's first line and what of the run could not be read; "" when neither.
std::string note_of(const results::RunRecord& run);

}  // namespace runner::report
