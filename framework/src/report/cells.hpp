// How the comparison table writes numbers and text into its cells.
#pragma once

#include <cstddef>
#include <string>

namespace runner::report {

// "12.3 s", "2 m 05 s", "1 h 02 m"; "" when not a finite non-negative number.
std::string format_duration(double seconds);

// "182.4 MiB"
std::string format_mebibytes(double bytes);

// Whole from 100 up, three significant digits below: "1234", "12.3", "0.00712".
std::string format_number(double value);

// A fraction as a percentage: 0.8731 -> "87.31%"
std::string format_percent(double fraction);

// The first line of `text`, cut to `max_chars` characters, ending in "..." when anything
// was left out: error messages can be long and span lines, table cells cannot.
std::string note_line(const std::string& text, size_t max_chars);

// Characters (UTF-8 code points) in `text`: what a terminal column holds.
size_t display_width(const std::string& text);

}  // namespace runner::report
