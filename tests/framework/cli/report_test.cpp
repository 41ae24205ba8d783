// runner report: the terminal table, CSV to a file or standard output, chosen columns.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "run_binary.hpp"

using ::testing::HasSubstr;
using ::testing::Not;

namespace runner::testing {
namespace {

// Four runs of the fixture's blobs: a float and a boolean swept.
std::string swept_results(const std::string& dir) {
  write_file(dir + "/exp.toml", blobs_experiment(dir + "/r.h5",
                                                 "[optimizer]\nname = \"sgd\"\nmomentum = 0.9\n"
                                                 "[sweep]\n\"optimizer.lr\" = [0.01, 0.1]\n"
                                                 "\"optimizer.nesterov\" = [true, false]\n"));
  const Output run = run_runner("--plugin-path " + fixture_plugins() + " -q " + dir + "/exp.toml");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return dir + "/r.h5";
}

size_t widest_line(const std::string& text) {
  size_t widest = 0, start = 0;
  for (size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
    widest = std::max(widest, end - start);
  return widest;
}

TEST(Report, PrintsSweptKeysOnceAsColumnsWithinTheTerminalWidth) {
  const std::string results = swept_results(scratch_dir("report_table"));
  const Output table = run_runner("report " + results);
  EXPECT_EQ(table.exit_code, 0) << table.err;
  for (const char* column :
       {"lr", "nesterov", "time", "samples/s", "step time", "test acc", "0.01", "true"})
    EXPECT_THAT(table.out, HasSubstr(column)) << column << " missing from\n" << table.out;
  EXPECT_THAT(table.out, Not(HasSubstr("optimizer.lr="))) << "the label repeats the sweep\n"
                                                          << table.out;
  EXPECT_LE(widest_line(table.out), 120u) << table.out;
}

TEST(Report, CsvToAFileHasOneLinePerRunAndUnitsInTheHeader) {
  const std::string dir = scratch_dir("report_csv_file");
  const std::string results = swept_results(dir);
  const Output csv = run_runner("report " + results + " --csv " + dir + "/t.csv");
  EXPECT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out, "wrote 4 run(s) to " + dir + "/t.csv\n");
  const std::string text = read_file(dir + "/t.csv");
  EXPECT_EQ(
      text.rfind("run_id,group,label,optimizer.lr,optimizer.nesterov,status,epochs,time_s,", 0), 0u)
      << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 5);
}

TEST(Report, CsvOnStandardOutputReadsBackInPandasAsNumbers) {
  const std::string dir = scratch_dir("report_csv_pandas");
  const std::string results = swept_results(dir);
  const Output csv = run_runner("report " + results + " --csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  write_file(dir + "/t.csv", csv.out);
  const int status =
      std::system((RUNNER_PYTHON " " RUNNER_SOURCE_DIR "/tests/framework/cli/read_report_csv.py " +
                   dir + "/t.csv " + results + " > " + dir + "/py.out 2>&1")
                      .c_str());
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 77 || code == 127)
    GTEST_SKIP() << "python3 with pandas and h5py is needed (tools/setup.sh installs them): "
                 << read_file(dir + "/py.out");
  EXPECT_EQ(code, 0) << read_file(dir + "/py.out");
}

TEST(Report, ColumnsChooseWhatIsShownInTheirOrder) {
  const std::string results = swept_results(scratch_dir("report_columns"));
  const Output table = run_runner("report " + results + " --columns test_accuracy,optimizer.lr");
  EXPECT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.out.rfind("test acc    lr\n", 0), 0u) << table.out;
  const Output csv = run_runner("report " + results + " --columns run_id,time_s --csv");
  EXPECT_EQ(csv.out.rfind("run_id,time_s\r\n", 0), 0u) << csv.out;
}

TEST(Report, AnUnknownColumnIsAConfigErrorListingTheKnownOnes) {
  const std::string results = swept_results(scratch_dir("report_unknown_column"));
  const Output o = run_runner("report " + results + " --columns time_s,speed");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_THAT(o.err, HasSubstr("runner: error: no column 'speed' in these results")) << o.err;
  EXPECT_THAT(o.err, HasSubstr("samples_per_s")) << o.err;
}

TEST(Report, AMissingFileOrOneNotOfRunnerIsOneLineNamingIt) {
  const std::string dir = scratch_dir("report_bad_files");
  const Output missing = run_runner("report " + dir + "/none.h5 --csv");
  EXPECT_EQ(missing.exit_code, 4);
  EXPECT_EQ(missing.err, "runner: error: results file not found: " + dir + "/none.h5\n");
  write_file(dir + "/notes.h5", "not hdf5\n");
  const Output other = run_runner("report " + dir + "/notes.h5");
  EXPECT_EQ(other.exit_code, 4);
  EXPECT_THAT(other.err, HasSubstr(dir + "/notes.h5: not an HDF5 file")) << other.err;
  EXPECT_EQ(other.out, "");
}

}  // namespace
}  // namespace runner::testing
