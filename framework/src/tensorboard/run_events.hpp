// A run's results writer that also writes the run as TensorBoard events: it forwards every
// call to the results file's writer, then writes into the run's own folder
//   step/loss, step/learning_rate                  at each training step
//   epoch/...                                      at the epoch's last step
//   final/...                                      at the run's last step
//   the hparams session's start (its swept values) at step 0
// and flushes after each call, so a run killed at any moment keeps every finished epoch.
// Each writer opens a new event file: a resumed run's file starts (SessionLog START) at the
// first step it records, so TensorBoard drops what the earlier files held from there on. The
// session's end lives in a file of its own that each end replaces, so the status TensorBoard
// shows (it keeps the first it reads) is the latest one.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "results/results.hpp"
#include "tensorboard/event_file.hpp"
#include "tensorboard/hparams.hpp"

namespace runner::tensorboard {

inline constexpr const char* kSessionEndFile = "events.out.tfevents.9999999999.session-end";

struct RunSession {
  SweepPoint point;   // the run's swept keys and values
  HParamTypes types;  // of the whole sweep, so every session types a key alike
  std::string group;  // the run id: repeats of one config form one group
};

// Replaces the end of the session in `folder` with `status` (completed: success, failed:
// failure, skipped: unknown).
void write_session_end(const std::string& folder, results::Status status, int64_t step);

class RunEvents final : public results::RunWriter {
 public:
  // Creates `folder`; throws DataError naming it when it cannot be written.
  RunEvents(results::RunWriter& results, const std::string& folder, const RunSession& session);

  const std::string& group_name() const override { return results_.group_name(); }
  void append_epoch(const results::EpochRecord& epoch) override;
  void append_steps(const std::vector<results::StepRecord>& steps) override;
  void write_summary(const results::Summary& summary) override;
  void set_status(results::Status status, const std::string& error = {}) override;
  void record_checkpoints(const std::string& folder) override;
  void resume_from(const std::string& checkpoint, size_t epochs, size_t steps) override;

 private:
  void write_steps(const std::vector<results::StepRecord>& steps);
  void write_epoch(const results::EpochRecord& epoch, int64_t step);
  // Before this file's first step: the run (re)starts at `step`.
  void start_at(int64_t step);

  results::RunWriter& results_;
  std::string folder_;
  // The last step recorded, by this writer or, until it records one, by the run's earlier
  // writers: where the final metrics go when a resumed run has no step left to train.
  int64_t last_step_ = 0;
  EventFile events_;
  bool started_ = false;
  // An epoch is written with its steps, at its last one: they come after it.
  std::optional<results::EpochRecord> pending_epoch_;
};

}  // namespace runner::tensorboard
