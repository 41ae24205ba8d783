// Every command that reads a path the user names, given a folder, a FIFO, a socket or a device
// there: one line naming the path and its kind, exit 2 or 4, at once (a FIFO's open would wait
// for a writer forever; each command runs under a 60 s kill so a hang fails instead).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "run_binary.hpp"
#include "runner_testing/special_files.hpp"

using ::testing::HasSubstr;

namespace runner::testing {
namespace {

struct SpecialPath {
  std::string path;
  std::string kind;  // as the error names it
};

// A folder, a FIFO, a socket and a character device, each in (or for) a fresh folder.
std::vector<SpecialPath> special_paths(const std::string& command) {
  const std::string dir = scratch_dir("special_" + command);
  std::vector<SpecialPath> paths = {{dir + "/folder", "a folder"},
                                    {dir + "/fifo", "a FIFO"},
                                    {dir + "/socket", "a socket"},
                                    {"/dev/null", "a character device"}};
  std::filesystem::create_directory(paths[0].path);
  EXPECT_EQ(mkfifo(paths[1].path.c_str(), 0600), 0);
  EXPECT_TRUE(make_socket_file(paths[2].path));
  return paths;
}

size_t occurrences(const std::string& text, const std::string& part) {
  size_t count = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

// Runs `args_for(path)` for each special path and expects `exit_code` and "<path>: is <kind>,
// not <what>" in what it printed.
void expect_each_refused(const std::string& command,
                         const std::function<std::string(const std::string&)>& args_for,
                         int exit_code, const std::string& what) {
  for (const SpecialPath& special : special_paths(command)) {
    const Output output = run_runner(args_for(special.path), "timeout -s KILL 60");
    const std::string said = special.path + ": is " + special.kind + ", not " + what;
    EXPECT_EQ(output.exit_code, exit_code) << command << " " << special.path << ": " << output.err;
    EXPECT_THAT(output.err, HasSubstr(said)) << command << ": " << output.err;
    EXPECT_EQ(occurrences(output.err, "runner: error:"), 1) << output.err;
  }
}

// An experiment file whose results go to `results`.
std::string experiment_into(const std::string& results) {
  const std::string dir =
      scratch_dir("special_results_" + std::to_string(std::hash<std::string>{}(results)));
  write_file(dir + "/exp.toml", blobs_experiment(results));
  return dir + "/exp.toml";
}

std::string fixture_path() { return "--plugin-path " + fixture_plugins() + " "; }

TEST(SpecialPaths, ReportRefusesEachAsItsResultsFile) {
  expect_each_refused(
      "report", [](const std::string& p) { return "report " + p; }, 4, "a results file");
  expect_each_refused(
      "report_csv", [](const std::string& p) { return "report " + p + " --csv"; }, 4,
      "a results file");
}

TEST(SpecialPaths, ExportRefusesEachAsItsResultsFile) {
  expect_each_refused(
      "export", [](const std::string& p) { return "export " + p + " run-1"; }, 4, "a results file");
}

TEST(SpecialPaths, ARunRefusesEachAsItsResultsFileAndWhenItResumes) {
  expect_each_refused(
      "run", [](const std::string& p) { return fixture_path() + experiment_into(p); }, 4,
      "a results file");
  expect_each_refused(
      "resume",
      [](const std::string& p) { return fixture_path() + experiment_into(p) + " --resume"; }, 4,
      "a results file");
}

TEST(SpecialPaths, RunDryRunAndPlanRefuseEachAsTheExperimentFile) {
  expect_each_refused(
      "experiment", [](const std::string& p) { return fixture_path() + p; }, 2, "a file");
  expect_each_refused(
      "dry_run", [](const std::string& p) { return fixture_path() + "--dry-run " + p; }, 2,
      "a file");
  expect_each_refused(
      "plan", [](const std::string& p) { return "plan " + p + " --devices 2"; }, 2, "a file");
}

}  // namespace
}  // namespace runner::testing
