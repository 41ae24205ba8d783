// print_table and write_csv, including a table read from a real results file.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <sstream>

#include "report/report.hpp"

namespace runner::report {
namespace {

TEST(PrintTable, AlignsColumnsUnderAHeaderRule) {
  const Table table{{"run", "lr", "test acc"},
                    {{"baseline", "0.1", "87.31%"}, {"wide-model", "0.01", "9.50%"}}};
  std::ostringstream out;
  print_table(table, out);
  EXPECT_EQ(out.str(),
            "run           lr  test acc\n"
            "----------  ----  --------\n"
            "baseline     0.1    87.31%\n"
            "wide-model  0.01     9.50%\n");
}

TEST(PrintTable, TextColumnsAreLeftAlignedAndWidthCountsCharacters) {
  const Table table{{"run", "status", "note"},
                    {{"größe", "failed", "out of memory"}, {"b", "completed", ""}}};
  std::ostringstream out;
  print_table(table, out);
  EXPECT_EQ(out.str(),
            "run    status     note\n"
            "-----  ---------  -------------\n"
            "größe  failed     out of memory\n"
            "b      completed\n");
}

TEST(WriteCsv, QuotesCommasQuotesAndNewlines) {
  const Table table{{"run", "model.hidden", "note"},
                    {{"a", "[128, 64]", "said \"no\""}, {"b", "plain", "two\nlines"}}};
  std::ostringstream out;
  write_csv(table, out);
  EXPECT_EQ(out.str(),
            "run,model.hidden,note\r\n"
            "a,\"[128, 64]\",\"said \"\"no\"\"\"\r\n"
            "b,plain,\"two\nlines\"\r\n");
}

TEST(WriteCsv, EmptyCellsStayEmpty) {
  const Table table{{"run", "lr"}, {{"a", ""}}};
  std::ostringstream out;
  write_csv(table, out);
  EXPECT_EQ(out.str(), "run,lr\r\na,\r\n");
}

TEST(ReportFromFile, TableOfRunsReadBackFromAResultsFile) {
  std::string folder = (std::filesystem::temp_directory_path() / "runner-report-XXXXXX").string();
  ASSERT_NE(mkdtemp(folder.data()), nullptr);
  const std::string path = folder + "/sweep.h5";
  {
    auto file = results::ResultsFile::open(path);
    for (const char* lr : {"0.1", "0.01"}) {
      results::RunHeader header;
      header.run_id = std::string("lr=") + lr;
      header.sweep_point = {{"optimizer.lr", lr}};
      auto run = file->begin_run(header);
      results::EpochRecord epoch;
      epoch.epoch = 1;
      epoch.duration_s = 3.5;
      epoch.data_wait_s = 0.5;
      epoch.compute_s = 3.0;
      epoch.test_accuracy = 0.5;
      run->append_epoch(epoch);
    }
  }
  const Table table = comparison_table(results::read_runs(path));
  std::filesystem::remove_all(folder);

  EXPECT_EQ(table.columns,
            (std::vector<std::string>{"run", "optimizer.lr", "status", "epochs", "time",
                                      "data wait", "compute", "peak mem", "test acc"}));
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_EQ(table.rows[0], (std::vector<std::string>{"lr=0.1", "0.1", "running", "1", "3.5 s",
                                                     "0.5 s", "3.0 s", "", "50.00%"}));
  EXPECT_EQ(table.rows[1].at(0), "lr=0.01");
}

}  // namespace
}  // namespace runner::report
