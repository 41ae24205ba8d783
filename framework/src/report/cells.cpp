// Cell text of the comparison table: durations, MiB, percents, one-line cuts, display width.
#include "report/cells.hpp"

#include <cmath>
#include <sstream>

#include <fmt/format.h>

namespace runner::report {

namespace {

bool is_utf8_continuation(char byte) { return (static_cast<unsigned char>(byte) & 0xC0) == 0x80; }

// The byte offset after the first `max_chars` characters of `text`.
size_t byte_offset_after(const std::string& text, size_t max_chars) {
  size_t chars = 0;
  for (size_t offset = 0; offset < text.size(); ++offset) {
    if (is_utf8_continuation(text[offset])) continue;
    if (chars == max_chars) return offset;
    ++chars;
  }
  return text.size();
}

std::string trim(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

}  // namespace

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "";
  if (std::round(seconds * 10) < 600) return fmt::format("{:.1f} s", seconds);
  const long long whole_seconds = std::llround(seconds);
  if (whole_seconds < 3600)
    return fmt::format("{} m {:02} s", whole_seconds / 60, whole_seconds % 60);
  const long long whole_minutes = std::llround(seconds / 60);
  return fmt::format("{} h {:02} m", whole_minutes / 60, whole_minutes % 60);
}

std::string format_mebibytes(double bytes) {
  return fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024.0));
}

std::string format_number(double value) {
  return value >= 100 ? fmt::format("{:.0f}", value) : fmt::format("{:.3g}", value);
}

std::string format_percent(double fraction) { return fmt::format("{:.2f}%", fraction * 100); }

std::string note_line(const std::string& text, size_t max_chars) {
  std::istringstream lines(text);
  std::string line;
  std::string first_line;
  bool more_lines = false;
  while (std::getline(lines, line)) {
    line = trim(line);
    if (line.empty()) continue;
    if (!first_line.empty()) {
      more_lines = true;
      break;
    }
    first_line = line;
  }
  const size_t cut = byte_offset_after(first_line, max_chars);
  const bool shortened = more_lines || cut < first_line.size();
  return shortened ? first_line.substr(0, cut) + "..." : first_line;
}

size_t display_width(const std::string& text) {
  size_t width = 0;
  for (char byte : text)
    if (!is_utf8_continuation(byte)) ++width;
  return width;
}

}  // namespace runner::report
