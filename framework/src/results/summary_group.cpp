// Writing and reading the "summary" subgroup: totals as attributes, per-class and per-rank lists.
#include "results/summary_group.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "results/attributes.hpp"
#include "results/datasets.hpp"
#include "results/groups.hpp"
#include "results/schema.hpp"

namespace runner::results::detail {

namespace {

const std::vector<std::pair<const char*, double Summary::*>>& double_fields() {
  static const std::vector<std::pair<const char*, double Summary::*>> fields{
      {"total_time_s", &Summary::total_time_s},
      {"final_train_loss", &Summary::final_train_loss},
      {"final_test_loss", &Summary::final_test_loss},
      {"final_test_accuracy", &Summary::final_test_accuracy},
      {"flops_per_sample", &Summary::flops_per_sample},
      {"tflops", &Summary::tflops},
      {"mfu", &Summary::mfu}};
  return fields;
}

const std::vector<std::pair<const char*, int64_t Summary::*>>& int_fields() {
  static const std::vector<std::pair<const char*, int64_t Summary::*>> fields{
      {"epochs_completed", &Summary::epochs_completed}, {"parameters", &Summary::parameters}};
  return fields;
}

// A notebook compares runs by one number: the rank that needed the most.
double largest_or_zero(const std::vector<double>& values) {
  return values.empty() ? 0.0 : *std::max_element(values.begin(), values.end());
}

}  // namespace

void write_summary_group(hid_t run_group, const Summary& summary) {
  Handle group = create_group(run_group, schema::kSummary);
  write_string_attribute(group.get(), schema::kTask, summary.task);
  for (const auto& [name, member] : double_fields())
    write_double_attribute(group.get(), name, summary.*member);
  for (const auto& [name, member] : int_fields())
    write_int_attribute(group.get(), name, summary.*member);
  write_string_list(group.get(), schema::kClassNames, summary.class_names);
  write_double_list(group.get(), schema::kPerClassAccuracy, summary.per_class_accuracy);
  write_double_list(group.get(), schema::kPeakMemoryPerRank, summary.peak_memory_per_rank_bytes);
  write_double_attribute(group.get(), schema::kPeakMemory,
                         largest_or_zero(summary.peak_memory_per_rank_bytes));
  write_double_list(group.get(), schema::kEstimatedMemoryPerRank,
                    summary.estimated_memory_per_rank_bytes);
  write_double_list(group.get(), schema::kTensorPeakPerRank, summary.tensor_peak_per_rank_bytes);
  write_double_list(group.get(), schema::kStateMemoryPerRank, summary.state_memory_per_rank_bytes);
}

std::optional<Summary> read_summary_group(hid_t run_group) {
  if (!has_member(run_group, schema::kSummary)) return std::nullopt;
  Handle group = open_group(run_group, schema::kSummary);
  Summary summary;
  // Files written before the attribute existed hold classifiers only.
  if (has_attribute(group.get(), schema::kTask))
    summary.task = read_string_attribute(group.get(), schema::kTask);
  for (const auto& [name, member] : double_fields())
    summary.*member = read_double_attribute(group.get(), name);
  for (const auto& [name, member] : int_fields())
    summary.*member = read_int_attribute(group.get(), name);
  summary.class_names = read_string_list(group.get(), schema::kClassNames);
  summary.per_class_accuracy = read_double_list(group.get(), schema::kPerClassAccuracy);
  summary.peak_memory_per_rank_bytes = read_double_list(group.get(), schema::kPeakMemoryPerRank);
  // Files before runner 0.2.0 have no plan.
  if (has_member(group.get(), schema::kEstimatedMemoryPerRank)) {
    summary.estimated_memory_per_rank_bytes =
        read_double_list(group.get(), schema::kEstimatedMemoryPerRank);
    summary.tensor_peak_per_rank_bytes = read_double_list(group.get(), schema::kTensorPeakPerRank);
  }
  if (has_member(group.get(), schema::kStateMemoryPerRank))  // runner 0.3.0 on
    summary.state_memory_per_rank_bytes =
        read_double_list(group.get(), schema::kStateMemoryPerRank);
  return summary;
}

}  // namespace runner::results::detail
