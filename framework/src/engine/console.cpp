#include "engine/console.hpp"

#include <fmt/format.h>

#include <cmath>

#include "report/cells.hpp"

namespace runner::engine {

using report::format_duration;
using report::format_mebibytes;

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

void Console::progress(int64_t epoch, int64_t epochs, int64_t step, int64_t steps, double loss,
                       double elapsed_s) {
  if (quiet_ || !interactive_ || steps <= 0) return;
  const int width = 30;
  const double done = static_cast<double>(step) / static_cast<double>(steps);
  const int filled = static_cast<int>(done * width);
  const double eta = step > 0 ? elapsed_s / static_cast<double>(step) * static_cast<double>(steps - step) : 0;
  out_ << fmt::format("\r\033[2Kepoch {}/{} [{}{}] {}/{} loss {:.4f} ETA {}", epoch, epochs,
                      std::string(filled, '#'), std::string(width - filled, '.'), step, steps,
                      loss, format_duration(eta))
       << std::flush;
  progress_shown_ = true;
}

void Console::epoch_done(const results::EpochRecord& e, int64_t epochs) {
  line(fmt::format(
      "epoch {}/{}  train loss {:.4f} acc {:.2f}%  test loss {:.4f} acc {:.2f}%  {} (data {})  "
      "{:.0f} samples/s  peak {}",
      e.epoch, epochs, e.train_loss, 100 * e.train_accuracy, e.test_loss, 100 * e.test_accuracy,
      format_duration(e.duration_s), format_duration(e.data_wait_s), e.samples_per_s,
      format_mebibytes(e.peak_memory_bytes)));
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
  line(fmt::format("test accuracy {:.2f}%, total training time {}, {:.3f} TFLOPS",
                   100 * s.final_test_accuracy, format_duration(s.total_time_s), s.tflops));
}

}  // namespace runner::engine
