// What a run prints: a header, a live progress bar with ETA on a terminal, a line per epoch,
// and the per-class accuracy and total time at the end. --quiet keeps only errors.
#pragma once

#include <chrono>
#include <ostream>
#include <string>
#include <vector>

#include "results/results.hpp"
#include "runner/dataset.hpp"

namespace runner::record {

// Where an epoch's training pass stands.
struct ProgressPoint {
  int64_t epoch = 1, epochs = 1;
  int64_t step = 0, steps = 0;   // the epoch's steps done, of its steps
  double loss = 0;               // the latest step's
  int64_t steps_timed = 0;       // of the steps done, those this process ran (not a resume's)
  double elapsed_s = 0;          // for those
  int64_t samples_per_step = 0;  // the global batch
};

class Console {
 public:
  Console(std::ostream& out, bool quiet, bool interactive)
      : out_(out), quiet_(quiet), interactive_(interactive) {}

  bool quiet() const { return quiet_; }
  void line(const std::string& text);
  void run_started(const std::string& title, const std::string& details);
  // A progress bar redrawn in place, with the rate and the ETA of the steps timed so far; a
  // no-op unless on a terminal.
  void progress(const ProgressPoint& point);
  // Language models show the loss per token and its perplexity, and next-token accuracy.
  void epoch_done(const results::EpochRecord& epoch, int64_t epochs,
                  Task task = Task::classification);
  void run_finished(const results::Summary& summary);

 private:
  void clear_progress();

  std::ostream& out_;
  bool quiet_;
  bool interactive_;
  bool progress_shown_ = false;
};

}  // namespace runner::record
