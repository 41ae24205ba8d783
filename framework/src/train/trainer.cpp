// One run trained: its epochs, their records, and the run's summary.
#include "train/trainer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "measure/mfu.hpp"
#include "measure/system.hpp"
#include "train/passes.hpp"
#include "train/run_checkpoints.hpp"
#include "train/session.hpp"

namespace runner::train {
namespace {

// (world_size) each rank's `value`.
std::vector<double> per_rank(const Session& s, double value) {
  auto values = torch::zeros({s.ranks.world_size()}, torch::kFloat64);
  values[s.ranks.rank()] = value;
  auto all = sum_over_ranks(s, values).to(torch::kCPU).contiguous();
  return std::vector<double>(all.data_ptr<double>(), all.data_ptr<double>() + all.numel());
}

// Each element the larger of `kept`'s and `values`'.
void keep_largest(std::vector<double>& kept, const std::vector<double>& values) {
  kept.resize(values.size(), 0.0);
  for (size_t r = 0; r < values.size(); ++r) kept[r] = std::max(kept[r], values[r]);
}

// The mean utilisation over the ranks that measured it, and the largest memory use.
void record_gpu(const Session& s, results::EpochRecord& record) {
  const measure::GpuEpoch mine = s.gpu ? s.gpu->take() : measure::GpuEpoch{};
  const std::vector<double> utilizations = per_rank(s, mine.utilization);
  const std::vector<double> memories = per_rank(s, mine.memory_used_bytes);
  double sum = 0;
  int measured = 0;
  for (size_t r = 0; r < utilizations.size(); ++r) {
    if (std::isnan(utilizations[r])) continue;
    sum += utilizations[r];
    ++measured;
    record.gpu_memory_used_bytes = std::isnan(record.gpu_memory_used_bytes)
                                       ? memories[r]
                                       : std::max(record.gpu_memory_used_bytes, memories[r]);
  }
  if (measured > 0) record.gpu_utilization = sum / measured;
}

// Seconds this rank has waited in collectives so far; NaN where not measured.
double communication_waited(const Session& s) {
  if (s.ranks.world_size() == 1) return 0;
  return s.ranks.waits ? s.ranks.waits->seconds() : std::numeric_limits<double>::quiet_NaN();
}

double mean(const std::vector<double>& values) {
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

results::EpochRecord run_epoch(Session& s, int64_t epoch, TrainPass pass, int64_t first_step,
                               const PassCheckpoints& checkpoints) {
  s.memory->epoch_begins();
  const double waited_before = communication_waited(s);
  if (s.gpu) s.gpu->epoch_begins();
  const auto start = Clock::now();
  s.model->train();
  TrainPass train = train_epoch(s, epoch, std::move(pass), first_step, checkpoints);
  s.state_memory_per_rank = per_rank(s, s.memory->tensors_in_use());
  sum_over_ranks(s, train.metrics);
  const double train_s = seconds_since(start);
  s.model->eval();
  double test_wait_s = 0;
  PassMetrics test = test_epoch(s, epoch, test_wait_s);
  sum_over_ranks(s, test);
  s.last_per_class = test.per_class_accuracy();
  s.train_compute_s += train_s;
  s.train_samples += train.metrics.samples();
  results::EpochRecord record;
  record.epoch = epoch;
  record.train_loss = train.metrics.mean_loss();
  record.train_accuracy = train.metrics.accuracy();
  record.test_loss = test.mean_loss();
  record.test_accuracy = test.accuracy();
  record.duration_s = seconds_since(start);
  const double waited = communication_waited(s) - waited_before;  // within the duration
  record.data_wait_s = train.data_wait_s + test_wait_s;
  record.compute_s = record.duration_s - record.data_wait_s;
  record.samples_per_s = static_cast<double>(train.metrics.samples()) / train_s;
  const std::vector<double> peaks = per_rank(s, s.memory->process_peak());
  record.peak_memory_bytes = *std::max_element(peaks.begin(), peaks.end());
  keep_largest(s.peak_memory_per_rank, peaks);
  keep_largest(s.tensor_peak_per_rank, per_rank(s, s.memory->tensor_peak()));
  const measure::PhaseTotals phases = s.meter->take();
  record.forward_s = phases.forward_s;
  record.backward_s = phases.backward_s;
  record.optimizer_s = phases.optimizer_s;
  record.activation_memory_bytes = phases.activation_bytes;
  record.skipped_steps = static_cast<double>(train.skipped_steps);
  record.loss_scale = train.loss_scale;
  const std::vector<double> waits = per_rank(s, phases.wait_s / std::max(1e-9, train_s));
  record.bubble_fraction = mean(waits);
  record.communication_s = mean(per_rank(s, waited));
  record.learning_rate = s.schedule->at(std::max<int64_t>(0, s.global_step - 1));
  record_gpu(s, record);
  s.writer.append_epoch(record);
  s.writer.append_steps(train.steps);
  check_finite(record.train_loss, s, epoch);
  return record;
}

results::Summary summarize(Session& s, const EarlierEpochs& epochs, double total_s,
                           std::vector<double> per_class) {
  RUNNER_CHECK(epochs.last.has_value(), "a run summarised after its epochs");
  results::Summary summary;
  summary.task = task_name(s.info.task);
  summary.total_time_s = total_s;
  summary.epochs_completed = epochs.completed;
  summary.final_train_loss = epochs.last->train_loss;
  summary.final_test_loss = epochs.last->test_loss;
  summary.final_test_accuracy = epochs.last->test_accuracy;
  summary.class_names = s.info.class_names;
  summary.per_class_accuracy = std::move(per_class);
  summary.peak_memory_per_rank_bytes = s.peak_memory_per_rank;
  summary.tensor_peak_per_rank_bytes = s.tensor_peak_per_rank;
  summary.state_memory_per_rank_bytes = s.state_memory_per_rank;
  for (const auto& rank : s.estimate.plan.ranks)
    summary.estimated_memory_per_rank_bytes.push_back(rank.total());
  summary.parameters = s.parameters;
  summary.flops_per_sample = measure::training_flops_per_sample(s.forward_flops_per_sample,
                                                                s.techniques.checkpoint_layers);
  summary.tflops = summary.flops_per_sample * static_cast<double>(s.train_samples) /
                   std::max(1e-9, s.train_compute_s) / 1e12;
  const double peak = measure::peak_tflops(s.run.train.get_double("peak_tflops"),
                                  s.device.is_cuda() ? measure::cuda_device_name() : "",
                                  s.techniques.precision);
  summary.mfu = measure::model_flops_utilisation(summary.tflops, peak, s.ranks.world_size());
  return summary;
}

}  // namespace

results::Summary train_run(const config::RunConfig& run, const plugin_host::Registry& registry,
                           record::Console& console, results::RunWriter& writer,
                           const RankContext& ranks,
                           const CheckpointSettings& checkpoint_settings) {
  Session s{run, console, writer, ranks};
  build_session(s, registry);
  RunCheckpoints checkpoints(s, checkpoint_settings);
  ResumePoint resume = checkpoints.load();
  console.line(fmt::format("  {} on {}: {} parameters, {} threads, {} steps/epoch",
                           run.model.name, s.device.str(), s.parameters, s.threads,
                           s.steps_per_epoch));
  if (!checkpoint_settings.resume_from.empty())
    console.line(fmt::format("  resumed from {} (step {}, epoch {})",
                             checkpoint_settings.resume_from, s.global_step, resume.epoch));
  if (checkpoint_settings.saves()) writer.record_checkpoints(checkpoint_settings.run_folder);
  EarlierEpochs done = resume.earlier;
  const double elapsed_before = done.elapsed_s;
  const auto start = Clock::now();
  auto so_far = [&] {
    EarlierEpochs now = done;
    now.elapsed_s = elapsed_before + seconds_since(start);
    return now;
  };
  for (int64_t epoch = resume.epoch; epoch <= s.epochs; ++epoch) {
    const bool mid_epoch = epoch == resume.epoch && resume.pass.has_value();
    const PassCheckpoints in_pass{
        [&] { return checkpoints.due_after_step(); },
        [&](const TrainPass& pass, int64_t done_steps) {
          checkpoints.save(epoch, done_steps, &pass, so_far());
        }};
    done.last = run_epoch(s, epoch, mid_epoch ? std::move(*resume.pass) : empty_pass(s),
                          mid_epoch ? resume.step_in_epoch : 0, in_pass);
    done.completed = epoch;
    console.epoch_done(*done.last, s.epochs, s.info.task);
    if (checkpoints.due_after_epoch(epoch)) checkpoints.save(epoch + 1, 0, nullptr, so_far());
  }
  checkpoints.finish();
  results::Summary summary =
      summarize(s, done, elapsed_before + seconds_since(start), s.last_per_class);
  writer.write_summary(summary);
  return summary;
}

}  // namespace runner::train
