// `runner report --html`'s pages opened in real browsers (Debian's chromium and firefox-esr,
// headless, through tools/report/check_page.py): for each kind of results file the page raised
// no error, drew each chart with its series, showed one table row per run, and left a
// screenshot in build/tests/artifacts/report_html/ (KIND.BROWSER.png). Skips, saying why, where
// the browser is absent.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace runner::report {
namespace {

struct Ran {
  int exit_code = -1;
  std::string output;
};

// `command` through the shell, stdout and stderr together.
Ran run_command(const std::string& command) {
  Ran ran;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return ran;
  char buffer[4096];
  for (size_t got; (got = fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    ran.output.append(buffer, got);
  const int status = pclose(pipe);
  ran.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return ran;
}

constexpr int kNoBrowser = 77;  // check_page.py's exit code where the browser is absent

// What a page must show: its table rows, charts (title=series drawn) and texts.
struct PageExpectation {
  std::string kind;  // of tests/fixtures/sample_results
  int rows = 0;
  std::vector<std::string> charts;
  std::vector<std::string> texts;
};

std::string artifacts_dir() {
  const std::string dir = std::string(RUNNER_BINARY_DIR) + "/tests/artifacts/report_html";
  std::filesystem::create_directories(dir);
  return dir;
}

std::string scratch(const std::string& kind) {
  const auto dir = std::filesystem::temp_directory_path() / ("runner_test_report_browser_" + kind);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

// The checks of check_page.py for `expected` in `browser`, as arguments.
std::string check_arguments(const PageExpectation& expected, const std::string& browser) {
  std::string arguments =
      " --browser " + browser + " --expect-rows " + std::to_string(expected.rows);
  for (const std::string& chart : expected.charts) arguments += " --expect-chart '" + chart + "'";
  for (const std::string& text : expected.texts) arguments += " --expect-text '" + text + "'";
  return arguments + " --screenshot '" + artifacts_dir() + "/" + expected.kind + "." + browser +
         ".png'";
}

// Each test runs in each browser.
class ReportInBrowser : public ::testing::TestWithParam<std::string> {
 protected:
  // Writes the kind's results file (unless `results` names one written already) and its page,
  // and checks the page in the browser.
  void check_page_of(const PageExpectation& expected, std::string results = "") const;
};

void ReportInBrowser::check_page_of(const PageExpectation& expected, std::string results) const {
  const std::string dir = scratch(expected.kind + "_" + GetParam());
  const std::string page = dir + "/" + expected.kind + ".html";
  if (results.empty()) {
    results = dir + "/" + expected.kind + ".h5";
    const Ran written = run_command(std::string(RUNNER_BINARY_DIR) +
                                    "/tests/fixtures/sample_results/sample_results " +
                                    expected.kind + " " + results);
    ASSERT_EQ(written.exit_code, 0) << written.output;
  }
  const Ran reported = run_command(std::string(RUNNER_BINARY_DIR) + "/bin/runner report " +
                                   results + " --html " + page);
  ASSERT_EQ(reported.exit_code, 0) << reported.output;
  const Ran checked =
      run_command("/usr/bin/python3 " + std::string(RUNNER_SOURCE_DIR) +
                  "/tools/report/check_page.py " + page + check_arguments(expected, GetParam()));
  if (checked.exit_code == kNoBrowser) GTEST_SKIP() << checked.output;
  EXPECT_EQ(checked.exit_code, 0) << checked.output;
}

const std::vector<std::string> kOneRunCharts = {
    "loss per epoch=2",       "loss per step=1",
    "accuracy per epoch=2",   "step-time phases per epoch=5",
    "samples/s per epoch=1",  "GPU utilisation per epoch=1",
    "GPU memory per epoch=1", "memory per rank=3",
    "per-class accuracy=1"};

TEST_P(ReportInBrowser, OneRunDrawsEveryChartOfARun) {
  check_page_of({"one-run", 1, kOneRunCharts, {"lenet5-fashion", "fashion_lenet"}});
}

// 6 points of backend x batch size, one of which only failed, and a smoke run: the overlays
// draw the 5 results only, each measure a series per batch size, the failed point is named.
TEST_P(ReportInBrowser, SweepOverlaysTheResultsAndDrawsEachMeasureAgainstTheFirstKey) {
  check_page_of({"sweep",
                 7,
                 {"test loss per epoch, chosen runs=5", "test accuracy per epoch, chosen runs=5",
                  "loss per step, chosen runs=5", "time total vs backend=3",
                  "samples/s vs backend=3", "test accuracy vs backend=3"},
                 {"smoke", "not drawn: backend=nccl, batch_size=128 (failed)",
                  "rank 1: CUDA out of memory"}});
}

TEST_P(ReportInBrowser, AFailedRunShowsItsErrorAndWhatItRecorded) {
  check_page_of({"failed",
                 1,
                 {"loss per epoch=2", "loss per step=1"},
                 {"the training loss is NaN at step 142", "failed"}});
}

TEST_P(ReportInBrowser, RestartsAndTheHangReportAreShown) {
  check_page_of({"restarts",
                 1,
                 kOneRunCharts,
                 {"rank 0 exited with signal 9 (SIGKILL)", "checkpoints/step-200",
                  "rank 0: waiting in all_reduce (step 150)"}});
}

// Names, errors and TOML holding a script element: shown as text, never run.
TEST_P(ReportInBrowser, ScriptInTheResultsIsShownAsText) {
  check_page_of({"hostile",
                 1,
                 {"loss per epoch=2"},
                 {"label </script><script>alert(1)</script>", "error </script><script>"}});
}

// runner plan's trials beside the experiment's own run: the plan's table lists the four
// layouts, the failed one unmeasured, and the rank correlation of the three measured: ranks of
// predicted (1, 2, 3) against measured (1, 3, 2), 1 - 6 * 2 / (3 * 8). The measures are drawn
// against the layout alone, the prediction being no axis of its own.
TEST_P(ReportInBrowser, APlansTrialsAreTabledPredictedBesideMeasured) {
  check_page_of({"plan",
                 5,
                 {"loss per epoch=2", "samples/s vs name=1"},
                 {"measured / predicted", "strategy.name=pipeline", "45.0 ms",
                  "rank correlation of predicted and measured steps: 0.50 (3 trials)"}});
}

TEST_P(ReportInBrowser, AFileWithoutRunsSaysSo) {
  check_page_of({"empty", 0, {}, {"this results file holds no runs"}});
}

// A run still training: the page says the file is being written and draws what is there.
TEST_P(ReportInBrowser, AFileBeingWrittenIsDrawnAsFarAsItGoes) {
  const std::string dir = scratch("live_writer_" + GetParam());
  const std::string results = dir + "/live.h5";
  FILE* writer =
      popen((std::string(RUNNER_BINARY_DIR) +
             "/tests/fixtures/sample_results/sample_results live " + results + " & echo $!; wait")
                .c_str(),
            "r");
  ASSERT_NE(writer, nullptr);
  char line[64] = {};
  ASSERT_NE(fgets(line, sizeof line, writer), nullptr);
  const std::string pid = std::to_string(std::atoi(line));
  ASSERT_NE(fgets(line, sizeof line, writer), nullptr);  // "ready": the run is recorded
  const PageExpectation expected{"live", 1, {"loss per epoch=2"}, {"still being written"}};
  check_page_of(expected, results);
  run_command("kill " + pid);
  pclose(writer);
}

INSTANTIATE_TEST_SUITE_P(Browsers, ReportInBrowser, ::testing::Values("chromium", "firefox"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace runner::report
