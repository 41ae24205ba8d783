// runner report --html: the page beside the results file or where --html names it, the line
// that says so, and its refusals (with --csv; a folder; another file without --force); and a
// run's --html, written when its sweep ends.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "run_binary.hpp"

using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::Not;
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

// `runner EXPERIMENT.toml --html`: the sweep's page written when it ends, beside its results.
TEST(RunHtml, WritesThePageWhenTheSweepEnds) {
  const std::string dir = scratch_dir("run_html");
  write_file(dir + "/exp.toml",
             blobs_experiment(dir + "/r.h5", "[sweep]\n\"train.batch_size\" = [8, 16]\n"));
  const Output o =
      run_runner("--plugin-path " + fixture_plugins() + " " + dir + "/exp.toml --html");
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("page: " + dir + "/r.html (2 run(s))\n")) << o.out;
  const std::string page = read_file(dir + "/r.html");
  EXPECT_THAT(page, HasSubstr("<meta name=\"generator\" content=\"runner "));
  EXPECT_THAT(page, HasSubstr("\"sweep_keys\":[\"train.batch_size\"]"));
}

// An experiment file after --html is the experiment, as after --resume: the page goes beside
// the results file.
TEST(RunHtml, AnExperimentFileAfterItIsTheExperiment) {
  const std::string dir = scratch_dir("run_html_toml_after");
  write_file(dir + "/exp.toml", blobs_experiment(dir + "/r.h5", ""));
  const Output o =
      run_runner("--plugin-path " + fixture_plugins() + " --html " + dir + "/exp.toml");
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(read_file(dir + "/exp.toml"), HasSubstr("[experiment]"));
  EXPECT_THAT(read_file(dir + "/r.html"), HasSubstr("\"run_id\""));
}

// A page path that is the run's own experiment file or results file is refused before any
// run trains: nothing is written.
TEST(RunHtml, ItsOwnInputsAreRefusedBeforeAnyRunTrains) {
  const std::string dir = scratch_dir("run_html_inputs");
  write_file(dir + "/exp.toml", blobs_experiment(dir + "/r.h5", ""));
  const std::string run = "--plugin-path " + fixture_plugins() + " " + dir + "/exp.toml --html ";
  const Output experiment = run_runner(run + dir + "/exp.toml");
  EXPECT_EQ(experiment.exit_code, 2);
  EXPECT_THAT(experiment.err, HasSubstr("is the experiment file this run reads")) << experiment.err;
  EXPECT_THAT(read_file(dir + "/exp.toml"), HasSubstr("[experiment]"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/r.h5"));
  const Output folder = run_runner(run + dir);
  EXPECT_EQ(folder.exit_code, 2);
  EXPECT_THAT(folder.err, HasSubstr("is a folder")) << folder.err;
  // A run takes no --force: the refusal of another file does not offer it.
  write_file(dir + "/notes.html", "my notes\n");
  const Output notes = run_runner(run + dir + "/notes.html");
  EXPECT_EQ(notes.exit_code, 2);
  EXPECT_THAT(notes.err, HasSubstr("is a file that is not what this command writes"));
  EXPECT_THAT(notes.err, HasSubstr("name another file")) << notes.err;
  EXPECT_THAT(notes.err, Not(HasSubstr("--force"))) << notes.err;
  EXPECT_EQ(read_file(dir + "/notes.html"), "my notes\n");
  EXPECT_FALSE(std::filesystem::exists(dir + "/r.h5"));
}

TEST(RunHtml, ADryRunWritesNoPage) {
  const std::string dir = scratch_dir("run_html_dry");
  write_file(dir + "/exp.toml", blobs_experiment(dir + "/r.h5", ""));
  const Output o =
      run_runner("--plugin-path " + fixture_plugins() + " --dry-run " + dir + "/exp.toml --html");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_THAT(o.err,
              AnyOf(HasSubstr("--html excludes --dry-run"), HasSubstr("--dry-run excludes --html")))
      << o.err;
}

}  // namespace
}  // namespace runner::testing
