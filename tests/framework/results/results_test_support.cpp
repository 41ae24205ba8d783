// Shared by the results tests: a scratch folder and runs with recognisable values.
#include "results_test_support.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

namespace runner::results::testing {

ScratchFolder::ScratchFolder() {
  std::string pattern = (std::filesystem::temp_directory_path() / "runner-results-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

ScratchFolder::~ScratchFolder() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

RunHeader sample_header(const std::string& run_id) {
  RunHeader header;
  header.run_id = run_id;
  header.label = "label of " + run_id;
  header.experiment = "mnist_mlp";
  header.config_toml = "[experiment]\nname = \"mnist_mlp\"\n\n[optimizer]\nlr = 0.1\n";
  // One value of each stored type; a list is kept as its TOML text.
  header.sweep_point = {{"optimizer.lr", 0.1},
                        {"model.hidden", std::string("[128, 64]")},
                        {"train.batch_size", int64_t{64}},
                        {"optimizer.nesterov", true}};
  header.environment = {{"runner", "0.1.0"}, {"device", "cpu"}, {"threads", "2"}};
  header.started_at = "2024-05-01T12:00:00Z";
  return header;
}

EpochRecord sample_epoch(int64_t epoch) {
  const double n = static_cast<double>(epoch);
  EpochRecord record;
  record.epoch = epoch;
  record.train_loss = 1.0 / n;
  record.train_accuracy = 0.5 + n / 100;
  record.test_loss = 1.5 / n;
  record.test_accuracy = 0.4 + n / 100;
  record.duration_s = 10 + n;
  record.data_wait_s = 0.5 + n;
  record.compute_s = 9 + n;
  record.samples_per_s = 6000 + n;
  record.peak_memory_bytes = 1e8 + n;
  record.learning_rate = 0.1 / n;
  record.forward_s = 2 + n;
  record.backward_s = 4 + n;
  record.optimizer_s = 1 + n;
  record.activation_memory_bytes = 3e6 + n;
  record.skipped_steps = n;
  record.loss_scale = 65536 / n;
  record.bubble_fraction = 0.2 / n;
  record.communication_s = 0.3 + n;
  record.gpu_utilization = 0.9 - n / 100;
  record.gpu_memory_used_bytes = 2e9 + n;
  return record;
}

StepRecord sample_step(int64_t step) {
  const double n = static_cast<double>(step);
  return StepRecord{step, 2.0 / n, 0.01 * n, 0.001 * n};
}

Summary sample_summary() {
  Summary summary;
  summary.total_time_s = 123.25;
  summary.epochs_completed = 2;
  summary.final_train_loss = 0.25;
  summary.final_test_loss = 0.3;
  summary.final_test_accuracy = 0.9125;
  summary.class_names = {"zero", "one", "Übergröße"};
  summary.per_class_accuracy = {0.9, 0.95, 0.875};
  summary.peak_memory_per_rank_bytes = {1.5e8, 1.25e8};
  summary.estimated_memory_per_rank_bytes = {9.5e7, 9.25e7};
  summary.tensor_peak_per_rank_bytes = {9e7, 8.75e7};
  summary.state_memory_per_rank_bytes = {4.5e7, 4.25e7};
  summary.parameters = 109386;
  summary.flops_per_sample = 6.5e5;
  summary.tflops = 0.012;
  summary.mfu = 0.0;
  return summary;
}

void expect_same_epoch(const EpochRecord& actual, const EpochRecord& expected) {
  EXPECT_EQ(actual.epoch, expected.epoch);
  EXPECT_EQ(actual.train_loss, expected.train_loss);
  EXPECT_EQ(actual.train_accuracy, expected.train_accuracy);
  EXPECT_EQ(actual.test_loss, expected.test_loss);
  EXPECT_EQ(actual.test_accuracy, expected.test_accuracy);
  EXPECT_EQ(actual.duration_s, expected.duration_s);
  EXPECT_EQ(actual.data_wait_s, expected.data_wait_s);
  EXPECT_EQ(actual.compute_s, expected.compute_s);
  EXPECT_EQ(actual.samples_per_s, expected.samples_per_s);
  EXPECT_EQ(actual.peak_memory_bytes, expected.peak_memory_bytes);
  EXPECT_EQ(actual.learning_rate, expected.learning_rate);
  EXPECT_EQ(actual.forward_s, expected.forward_s);
  EXPECT_EQ(actual.backward_s, expected.backward_s);
  EXPECT_EQ(actual.optimizer_s, expected.optimizer_s);
  EXPECT_EQ(actual.activation_memory_bytes, expected.activation_memory_bytes);
  EXPECT_EQ(actual.skipped_steps, expected.skipped_steps);
  EXPECT_EQ(actual.loss_scale, expected.loss_scale);
  EXPECT_EQ(actual.bubble_fraction, expected.bubble_fraction);
  EXPECT_EQ(actual.communication_s, expected.communication_s);
  EXPECT_EQ(actual.gpu_utilization, expected.gpu_utilization);
  EXPECT_EQ(actual.gpu_memory_used_bytes, expected.gpu_memory_used_bytes);
}

}  // namespace runner::results::testing
