// A run's checkpoints as the trainer sees them: what it saves after a step or an epoch (the
// strategy's state, every rank's random generators, where training stands and what it has
// recorded), and what it loads to resume.
#pragma once

#include <memory>
#include <optional>

#include "checkpoint/settings.hpp"
#include "checkpoint/writer.hpp"
#include "train/passes.hpp"
#include "train/session.hpp"

namespace runner::train {

// What the epochs before a resume left for the run's summary.
struct EarlierEpochs {
  int64_t completed = 0;
  std::optional<results::EpochRecord> last;  // its losses and test accuracy
  double elapsed_s = 0;                      // the run's time before the resume
};

// Where a resumed run goes on: the epoch, and with it the steps of that epoch already done.
struct ResumePoint {
  int64_t epoch = 1;
  int64_t step_in_epoch = 0;
  std::optional<TrainPass> pass;  // the epoch's pass so far, when it stopped mid-epoch
  EarlierEpochs earlier;
};

class RunCheckpoints {
 public:
  // Throws ConfigError when the run saves checkpoints and its strategy cannot.
  RunCheckpoints(Session& s, checkpoint::CheckpointSettings settings);

  // The checkpoint of settings.resume_from loaded into the strategy and the session; the
  // start of the run without one. Rank 0 then removes the run's checkpoints of later steps:
  // this run writes them again.
  ResumePoint load();

  bool due_after_step() const;
  // After `epoch`, after a step due that ends it, and after the run's last epoch.
  bool due_after_epoch(int64_t epoch) const;
  // `pass`: the epoch's pass so far, when the checkpoint falls inside an epoch.
  void save(int64_t epoch, int64_t step_in_epoch, const TrainPass* pass,
            const EarlierEpochs& earlier);
  // Waits for the last save to be on disk.
  void finish();
  // After the last epoch of a run that saves no checkpoints: the model's weights alone, on
  // disk when it returns. false: none kept ([checkpoint] final_weights = false, or a strategy
  // that lists no state).
  bool save_final_weights();

 private:
  ResumePoint load_checkpoint();

  Session& s_;
  checkpoint::CheckpointSettings settings_;
  std::unique_ptr<checkpoint::ShardWriter> writer_;
};

}  // namespace runner::train
