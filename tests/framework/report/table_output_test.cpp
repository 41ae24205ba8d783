// print_table and write_csv, including a table read from a real results file.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <sstream>

#include "report/csv.hpp"
#include "report/print_table.hpp"
#include "results/read_runs.hpp"

namespace runner::report {
namespace {

TEST(PrintTable, AlignsColumnsUnderAHeaderRule) {
  const Table table{{"run", "lr", "test acc"},
                    {{"baseline", "0.1", "87.31%"}, {"wide-model", "0.01", "9.50%"}},
                    {false, true, true}};
  std::ostringstream out;
  print_table(table, out);
  EXPECT_EQ(out.str(),
            "run           lr  test acc\n"
            "----------  ----  --------\n"
            "baseline     0.1    87.31%\n"
            "wide-model  0.01     9.50%\n");
}

TEST(PrintTable, TextColumnsAreLeftAlignedAndWidthCountsCharacters) {
  // Alignment not given: every column is text.
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

RunTable text_table(std::vector<std::vector<Cell>> rows) {
  return {{{"run", "run", Unit::text},
           {"model.hidden", "model.hidden", Unit::text, true},
           {"note", "note", Unit::text}},
          std::move(rows)};
}

TEST(WriteCsv, QuotesCommasQuotesAndNewlines) {
  std::ostringstream out;
  write_csv(text_table({{std::string("a"), std::string("[128, 64]"), std::string("said \"no\"")},
                        {std::string("b"), std::string("plain"), std::string("two\nlines")}}),
            out);
  EXPECT_EQ(out.str(),
            "run,model.hidden,note\r\n"
            "a,\"[128, 64]\",\"said \"\"no\"\"\"\r\n"
            "b,plain,\"two\nlines\"\r\n");
}

TEST(WriteCsv, NumbersArePlainAndEmptyCellsStayEmpty) {
  const RunTable table{
      {{"time_s", "time", Unit::seconds},
       {"peak_memory_bytes", "peak mem", Unit::bytes},
       {"epochs", "epochs", Unit::count},
       {"optimizer.nesterov", "optimizer.nesterov", Unit::text, true},
       {"test_accuracy", "test acc", Unit::fraction}},
      {{125.0, 322070937.6, int64_t{2}, true, 0.8731}, {Cell(), 1e-5, int64_t{0}, false, Cell()}}};
  std::ostringstream out;
  write_csv(table, out);
  EXPECT_EQ(out.str(),
            "time_s,peak_memory_bytes,epochs,optimizer.nesterov,test_accuracy\r\n"
            "125,322070937.6,2,true,0.8731\r\n"
            ",1e-05,0,false,\r\n");
}

TEST(ReportFromFile, TableOfRunsReadBackFromAResultsFile) {
  std::string folder = (std::filesystem::temp_directory_path() / "runner-report-XXXXXX").string();
  ASSERT_NE(mkdtemp(folder.data()), nullptr);
  const std::string path = folder + "/sweep.h5";
  {
    auto file = results::ResultsFile::open(path);
    for (double lr : {0.1, 0.01}) {
      results::RunHeader header;
      header.run_id = "lr=" + std::to_string(lr);
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
  const RunTable table = run_table(results::read_runs(path));
  std::filesystem::remove_all(folder);

  ASSERT_EQ(table.rows.size(), 2u);
  const int lr = column_index(table, "optimizer.lr");
  ASSERT_GE(lr, 0);
  EXPECT_EQ(std::get<double>(table.rows[1][lr]), 0.01) << "read back as a float";
  EXPECT_EQ(std::get<double>(table.rows[0][column_index(table, "time_s")]), 3.5);
  // Its writer closed without recording an end, as a killed process does.
  EXPECT_EQ(std::get<std::string>(table.rows[0][column_index(table, "status")]), "killed?");
}

}  // namespace
}  // namespace runner::report
