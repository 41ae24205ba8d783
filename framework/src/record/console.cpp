// A run's lines on the terminal: header, progress bar, epochs, summary.
#include "record/console.hpp"

#include <fmt/format.h>

#include <cmath>

#include "report/cells.hpp"

namespace runner::record {

using report::format_duration;
using report::format_mebibytes;
using report::format_number;

void Console::line(const std::string& text) {
  if (quiet_) return;
  clear_progress();
  out_ << text << '\n' << std::flush;
}

void Console::run_started(const std::string& title, const std::string& details) {
  line(title);
  if (!details.empty()) line("  " + details);
}

void Console::clear_progress() {
  if (!progress_shown_) return;
  out_ << "\r\033[2K";
  progress_shown_ = false;
}

void Console::progress(const ProgressPoint& p) {
  if (quiet_ || !interactive_ || p.steps <= 0) return;
  const int width = 30;
  const double done = static_cast<double>(p.step) / static_cast<double>(p.steps);
  const int filled = static_cast<int>(done * width);
  const double step_s =
      p.steps_timed > 0 ? p.elapsed_s / static_cast<double>(p.steps_timed) : 0;  // per step
  const double samples_per_s = step_s > 0 ? static_cast<double>(p.samples_per_step) / step_s : 0;
  out_ << fmt::format("\r\033[2Kepoch {}/{} [{}{}] {}/{} loss {:.4f} {:.0f} samples/s ETA {}",
                      p.epoch, p.epochs, std::string(filled, '#'), std::string(width - filled, '.'),
                      p.step, p.steps, p.loss, samples_per_s,
                      format_duration(step_s * static_cast<double>(p.steps - p.step)))
       << std::flush;
  progress_shown_ = true;
}

namespace {

std::string loss_and_accuracy(const char* split, double loss, double accuracy, Task task) {
  if (task == Task::language_modeling)
    return fmt::format("{} loss {:.4f} ppl {:.2f} token acc {:.2f}%", split, loss, std::exp(loss),
                       100 * accuracy);
  return fmt::format("{} loss {:.4f} acc {:.2f}%", split, loss, 100 * accuracy);
}

}  // namespace

void Console::epoch_done(const results::EpochRecord& e, int64_t epochs, Task task) {
  const std::string gpu =
      std::isnan(e.gpu_utilization) ? "" : fmt::format("  GPU {:.0f}%", 100 * e.gpu_utilization);
  line(fmt::format("epoch {}/{}  {}  {}  {} (data {})  {} samples/s  peak {}{}", e.epoch, epochs,
                   loss_and_accuracy("train", e.train_loss, e.train_accuracy, task),
                   loss_and_accuracy("test", e.test_loss, e.test_accuracy, task),
                   format_duration(e.duration_s), format_duration(e.data_wait_s),
                   format_number(e.samples_per_s), format_mebibytes(e.peak_memory_bytes), gpu));
}

void Console::run_finished(const results::Summary& s) {
  if (quiet_) return;
  if (!s.per_class_accuracy.empty()) {
    line("per-class test accuracy:");
    for (size_t c = 0; c < s.per_class_accuracy.size(); ++c) {
      std::string name = c < s.class_names.size() ? s.class_names[c] : std::to_string(c);
      line(fmt::format("  {:<14} {:6.2f}%", name, 100 * s.per_class_accuracy[c]));
    }
  }
  const std::string quality =
      s.task == task_name(Task::language_modeling)
          ? fmt::format("test loss {:.4f} per token, perplexity {:.2f}", s.final_test_loss,
                        std::exp(s.final_test_loss))
          : fmt::format("test accuracy {:.2f}%", 100 * s.final_test_accuracy);
  line(fmt::format("{}, total training time {}, {:.3f} TFLOPS", quality,
                   format_duration(s.total_time_s), s.tflops));
}

}  // namespace runner::record
