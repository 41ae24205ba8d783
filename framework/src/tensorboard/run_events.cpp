// RunEvents: each results call forwarded, then the run's steps, epochs, start and end as events.
#include "tensorboard/run_events.hpp"

#include <cmath>
#include <filesystem>

#include "tensorboard/folders.hpp"

namespace runner::tensorboard {
namespace {

// What may go unmeasured only where it was: a CPU run has no GPU curve rather than a flat zero.
std::vector<Scalar> epoch_scalars(const results::EpochRecord& e) {
  std::vector<Scalar> scalars{{"epoch/epoch", static_cast<double>(e.epoch)},
                              {"epoch/train_loss", e.train_loss},
                              {"epoch/train_accuracy", e.train_accuracy},
                              {"epoch/test_loss", e.test_loss},
                              {"epoch/test_accuracy", e.test_accuracy},
                              {"epoch/samples_per_s", e.samples_per_s},
                              {"epoch/peak_memory_bytes", e.peak_memory_bytes},
                              {"epoch/data_wait_s", e.data_wait_s},
                              {"epoch/compute_s", e.compute_s},
                              {"epoch/duration_s", e.duration_s}};
  if (!std::isnan(e.communication_s))
    scalars.push_back({"epoch/communication_s", e.communication_s});
  if (!std::isnan(e.gpu_utilization))
    scalars.push_back({"epoch/gpu_utilization", e.gpu_utilization});
  if (!std::isnan(e.gpu_memory_used_bytes))
    scalars.push_back({"epoch/gpu_memory_used_bytes", e.gpu_memory_used_bytes});
  return scalars;
}

// The folder made before the file is opened in it.
std::string made(const std::string& folder) {
  create_folder(folder);
  return folder;
}

}  // namespace

void write_session_end(const std::string& folder, results::Status status, int64_t step) {
  replace_event_file((std::filesystem::path(folder) / kSessionEndFile).string(),
                     {session_end_event(status, step, wall_time_now())});
}

RunEvents::RunEvents(results::RunWriter& results, const std::string& folder,
                     const RunSession& session)
    : results_(results),
      folder_(made(folder)),
      last_step_(last_scalar_step(folder_)),
      events_(new_event_file_path(folder_)) {
  events_.write(session_start_event(session.point, session.types, session.group, wall_time_now()));
  events_.flush();
}

void RunEvents::append_epoch(const results::EpochRecord& epoch) {
  results_.append_epoch(epoch);
  pending_epoch_ = epoch;
}

void RunEvents::append_steps(const std::vector<results::StepRecord>& steps) {
  results_.append_steps(steps);
  write_steps(steps);
  if (pending_epoch_) write_epoch(*pending_epoch_, last_step_);
  pending_epoch_.reset();
  events_.flush();
}

void RunEvents::write_summary(const results::Summary& summary) {
  results_.write_summary(summary);
  events_.write(scalars_event(final_scalars(summary), last_step_, wall_time_now()));
  events_.flush();
}

void RunEvents::set_status(results::Status status, const std::string& error) {
  results_.set_status(status, error);
  if (status != results::Status::running) write_session_end(folder_, status, last_step_);
}

void RunEvents::record_checkpoints(const std::string& folder) {
  results_.record_checkpoints(folder);
}

void RunEvents::resume_from(const std::string& checkpoint, size_t epochs, size_t steps) {
  results_.resume_from(checkpoint, epochs, steps);
}

// Each step's wall time is taken back from now by the durations of the steps after it.
void RunEvents::write_steps(const std::vector<results::StepRecord>& steps) {
  if (steps.empty()) return;
  start_at(steps.front().step);
  std::vector<double> wall_times(steps.size());
  double wall_time = wall_time_now();
  for (size_t i = steps.size(); i-- > 0;) {
    wall_times[i] = wall_time;
    wall_time -= steps[i].duration_s;
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    const auto& step = steps[i];
    events_.write(
        scalars_event({{"step/loss", step.loss}, {"step/learning_rate", step.learning_rate}},
                      step.step, wall_times[i]));
  }
  last_step_ = steps.back().step;
}

void RunEvents::write_epoch(const results::EpochRecord& epoch, int64_t step) {
  events_.write(scalars_event(epoch_scalars(epoch), step, wall_time_now()));
}

void RunEvents::start_at(int64_t step) {
  if (started_) return;
  events_.write(start_event(step, wall_time_now()));
  started_ = true;
}

}  // namespace runner::tensorboard
