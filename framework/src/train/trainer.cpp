// One run trained: its epochs, their records, and the run's summary.
#include "train/trainer.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "train/passes.hpp"
#include "train/run_checkpoints.hpp"
#include "train/session.hpp"

namespace runner::train {
namespace {

results::EpochRecord run_epoch(Session& s, int64_t epoch, TrainPass pass, int64_t first_step,
                               const PassCheckpoints& checkpoints) {
  s.measures.epoch_begins();
  const auto start = Clock::now();
  s.model->train();
  TrainPass train = train_epoch(s, epoch, std::move(pass), first_step, checkpoints);
  s.measures.training_pass_ended();
  sum_over_ranks(s, train.metrics);
  const double train_s = seconds_since(start);
  s.model->eval();
  double test_wait_s = 0;
  PassMetrics test = test_epoch(s, epoch, test_wait_s);
  enter(s, distributed::RunPhase::metrics);
  sum_over_ranks(s, test);
  s.progress.last_per_class = test.per_class_accuracy();
  results::EpochRecord record;
  record.epoch = epoch;
  record.train_loss = train.metrics.mean_loss();
  record.train_accuracy = train.metrics.accuracy();
  record.test_loss = test.mean_loss();
  record.test_accuracy = test.accuracy();
  record.duration_s = seconds_since(start);
  record.data_wait_s = train.data_wait_s + test_wait_s;
  record.compute_s = record.duration_s - record.data_wait_s;
  record.samples_per_s = static_cast<double>(train.metrics.samples()) / train_s;
  record.skipped_steps = static_cast<double>(train.skipped_steps);
  record.loss_scale = train.loss_scale;
  record.learning_rate = s.loop.schedule->at(std::max<int64_t>(0, s.progress.global_step - 1));
  s.measures.epoch_ended(record, train_s, train.metrics.samples());
  s.writer.append_epoch(record);
  s.writer.append_steps(train.steps);
  check_finite(record.train_loss, s, epoch);
  return record;
}

results::Summary summarize(const Session& s, const EarlierEpochs& epochs, double total_s,
                           std::vector<double> per_class) {
  RUNNER_CHECK(epochs.last.has_value(), "a run summarised after its epochs");
  results::Summary summary;
  summary.task = task_name(s.loading.info.task);
  summary.total_time_s = total_s;
  summary.epochs_completed = epochs.completed;
  summary.final_train_loss = epochs.last->train_loss;
  summary.final_test_loss = epochs.last->test_loss;
  summary.final_test_accuracy = epochs.last->test_accuracy;
  summary.class_names = s.loading.info.class_names;
  summary.per_class_accuracy = std::move(per_class);
  s.measures.summarize(summary, s.techniques, s.run.train.peak_tflops);
  return summary;
}

}  // namespace

results::Summary train_run(const config::RunConfig& run, const plugin_host::Registry& registry,
                           record::Console& console, results::RunWriter& writer,
                           const RankContext& ranks,
                           const checkpoint::CheckpointSettings& checkpoint_settings) {
  Session s{run, console, writer, ranks};
  build_session(s, registry);
  RunCheckpoints checkpoints(s, checkpoint_settings);
  ResumePoint resume = checkpoints.load();
  console.line(fmt::format("  {} on {}: {} parameters, {} threads, {} steps/epoch{}",
                           run.model.name, s.device.str(), s.measures.parameters, s.threads,
                           s.loop.steps_per_epoch,
                           s.loop.max_eval_steps > 0
                               ? fmt::format(", tests on at most {} batches", s.loop.max_eval_steps)
                               : ""));
  if (!checkpoint_settings.resume_from.empty())
    console.line(fmt::format("  resumed from {} (step {}, epoch {})",
                             checkpoint_settings.resume_from, s.progress.global_step,
                             resume.epoch));
  if (checkpoint_settings.saves()) writer.record_checkpoints(checkpoint_settings.run_folder);
  EarlierEpochs done = resume.earlier;
  const double elapsed_before = done.elapsed_s;
  const auto start = Clock::now();
  auto so_far = [&] {
    EarlierEpochs now = done;
    now.elapsed_s = elapsed_before + seconds_since(start);
    return now;
  };
  for (int64_t epoch = resume.epoch; epoch <= s.loop.epochs; ++epoch) {
    const bool mid_epoch = epoch == resume.epoch && resume.pass.has_value();
    const PassCheckpoints in_pass{[&] { return checkpoints.due_after_step(); },
                                  [&](const TrainPass& pass, int64_t done_steps) {
                                    checkpoints.save(epoch, done_steps, &pass, so_far());
                                  }};
    done.last = run_epoch(s, epoch, mid_epoch ? std::move(*resume.pass) : empty_pass(s),
                          mid_epoch ? resume.step_in_epoch : 0, in_pass);
    done.completed = epoch;
    console.epoch_done(*done.last, s.loop.epochs, s.loading.info.task);
    if (checkpoints.due_after_epoch(epoch)) checkpoints.save(epoch + 1, 0, nullptr, so_far());
  }
  enter(s, distributed::RunPhase::finishing);
  checkpoints.finish();
  const double total_s = elapsed_before + seconds_since(start);  // training's, not the save's
  if (checkpoints.save_final_weights()) writer.record_checkpoints(checkpoint_settings.run_folder);
  results::Summary summary = summarize(s, done, total_s, s.progress.last_per_class);
  writer.write_summary(summary);
  return summary;
}

}  // namespace runner::train
