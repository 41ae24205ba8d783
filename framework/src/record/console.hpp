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

class Console {
 public:
  Console(std::ostream& out, bool quiet, bool interactive)
      : out_(out), quiet_(quiet), interactive_(interactive) {}

  bool quiet() const { return quiet_; }
  void line(const std::string& text);
  void run_started(const std::string& title, const std::string& details);
  // A progress bar redrawn in place; a no-op unless on a terminal.
  void progress(int64_t epoch, int64_t epochs, int64_t step, int64_t steps, double loss,
                double elapsed_s);
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
