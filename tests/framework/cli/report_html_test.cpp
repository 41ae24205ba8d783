// runner report --html: the page beside the results file or where --html names it, the line
// that says so, and its refusals (with --csv; a folder; another file without --force).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "run_binary.hpp"

using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace runner::testing {
namespace {

// A results file of the sample_results fixture's `kind` (tests/fixtures/sample_results).
std::string sample_results(const std::string& kind, const std::string& path) {
  const std::string program = RUNNER_BINARY_DIR "/tests/fixtures/sample_results/sample_results";
  EXPECT_EQ(std::system((program + " " + kind + " " + path).c_str()), 0) << kind;
  return path;
}

TEST(ReportHtml, WritesThePageBesideTheResultsFileAndSaysSo) {
  const std::string dir = scratch_dir("report_html_beside");
  const Output o = run_runner("report " + sample_results("sweep", dir + "/r.h5") + " --html");
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.out, "wrote " + dir + "/r.html (7 run(s))\n");
  const std::string page = read_file(dir + "/r.html");
  EXPECT_THAT(page, HasSubstr("<meta name=\"generator\" content=\"runner "));
  EXPECT_THAT(page, HasSubstr("\"sweep_keys\":[\"strategy.backend\",\"data.batch_size\"]"));
}

TEST(ReportHtml, WritesWhereNamedAndReplacesOnlyItsOwnPagesWithoutForce) {
  const std::string dir = scratch_dir("report_html_named");
  const std::string results = sample_results("one-run", dir + "/r.h5");
  const Output first = run_runner("report " + results + " --html " + dir + "/p.html");
  EXPECT_EQ(first.out, "wrote " + dir + "/p.html (1 run(s))\n") << first.err;
  EXPECT_EQ(run_runner("report " + results + " --html " + dir + "/p.html").exit_code, 0);
  write_file(dir + "/notes.html", "my notes\n");
  const Output refused = run_runner("report " + results + " --html " + dir + "/notes.html");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, StartsWith("runner: error: --html " + dir +
                                      "/notes.html: is a file that is not what this command "
                                      "writes\n"));
  EXPECT_EQ(read_file(dir + "/notes.html"), "my notes\n");
  EXPECT_EQ(run_runner("report " + results + " --html " + dir + "/notes.html --force").exit_code,
            0);
}

TEST(ReportHtml, ExcludesCsv) {
  const std::string dir = scratch_dir("report_html_csv");
  const std::string results = sample_results("one-run", dir + "/r.h5");
  const Output o = run_runner("report " + results + " --html " + dir + "/p.html --csv");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_THAT(o.err, AnyOf(HasSubstr("--html excludes --csv"), HasSubstr("--csv excludes --html")))
      << o.err;
  EXPECT_EQ(o.out, "");
}

TEST(ReportHtml, AFolderIsRefusedAsOtherReportErrorsAre) {
  const std::string dir = scratch_dir("report_html_folder");
  const std::string results = sample_results("one-run", dir + "/r.h5");
  const Output o = run_runner("report " + results + " --html " + dir);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_THAT(o.err,
              StartsWith("runner: error: --html " + dir + ": is a folder, not a file to write\n"));
}

}  // namespace
}  // namespace runner::testing
