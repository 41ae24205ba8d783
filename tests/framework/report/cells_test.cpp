// Tests of the table cells: durations as a clock, MiB, percentages, one line, display width.
#include <gtest/gtest.h>

#include <cmath>

#include "report/cells.hpp"

namespace runner::report {
namespace {

TEST(ReportCells, DurationsReadLikeAClock) {
  EXPECT_EQ(format_duration(0), "0.0 s");
  EXPECT_EQ(format_duration(12.34), "12.3 s");
  EXPECT_EQ(format_duration(59.94), "59.9 s");
  EXPECT_EQ(format_duration(59.96), "1 m 00 s");
  EXPECT_EQ(format_duration(125), "2 m 05 s");
  EXPECT_EQ(format_duration(3599.6), "1 h 00 m");
  EXPECT_EQ(format_duration(3 * 3600 + 7 * 60 + 20), "3 h 07 m");
  EXPECT_EQ(format_duration(-1), "");
  EXPECT_EQ(format_duration(std::nan("")), "");
}

TEST(ReportCells, MemoryInMebibytes) {
  EXPECT_EQ(format_mebibytes(182.4 * 1024 * 1024), "182.4 MiB");
  EXPECT_EQ(format_mebibytes(512 * 1024), "0.5 MiB");
}

TEST(ReportCells, NumbersBelowOneHundredKeepThreeDigits) {
  EXPECT_EQ(format_number(1234.4), "1234");
  EXPECT_EQ(format_number(12.34), "12.3");
  EXPECT_EQ(format_number(0.007123), "0.00712");
  EXPECT_EQ(format_number(0), "0");
}

TEST(ReportCells, AccuracyAsPercentage) {
  EXPECT_EQ(format_percent(0.8731), "87.31%");
  EXPECT_EQ(format_percent(1), "100.00%");
}

TEST(ReportCells, NoteLineKeepsTheFirstLineAndMarksWhatIsCut) {
  EXPECT_EQ(note_line("out of memory", 80), "out of memory");
  EXPECT_EQ(note_line("  \nloss is NaN\n  at step 3", 80), "loss is NaN...");
  EXPECT_EQ(note_line("abcdefghij", 4), "abcd...");
  EXPECT_EQ(note_line("ééééé", 2), "éé...");
  EXPECT_EQ(note_line("", 80), "");
}

TEST(ReportCells, DisplayWidthCountsCharactersNotBytes) {
  EXPECT_EQ(display_width("abc"), 3u);
  EXPECT_EQ(display_width("Übergröße"), 9u);
}

}  // namespace
}  // namespace runner::report
