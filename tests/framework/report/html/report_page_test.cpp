// write_report_page: the page beside the results file or where --html names it; refused before
// anything is read when the path is the results file, no regular file, or a file of another kind
// (unless --force); a page written before is replaced; a failed write leaves no half page.
#include "report/html/report_page.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "results/results.hpp"
#include "runner/errors.hpp"
#include "runner_testing/files.hpp"

using ::testing::HasSubstr;

namespace runner::report::html {
namespace {

namespace fs = std::filesystem;
using runner::testing::file_bytes;

std::string fresh_folder(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("runner_report_page_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

// A results file of `runs` completed runs of one epoch.
std::string results_with(const std::string& path, int runs) {
  const auto file = results::ResultsFile::open(path);
  for (int i = 0; i < runs; ++i) {
    results::RunHeader header;
    header.run_id = "run-" + std::to_string(i);
    header.experiment = "page_test";
    auto run = file->begin_run(header);
    results::EpochRecord epoch;
    epoch.epoch = 1;
    run->append_epoch(epoch);
    run->set_status(results::Status::completed);
  }
  return path;
}

std::string put(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The refusal's message, or "" when the page was written.
std::string refusal(const std::string& results, const std::string& out, bool force = false) {
  try {
    write_report_page({results, out, force});
    return "";
  } catch (const ConfigError& e) {
    return e.what();
  }
}

TEST(PagePath, IsBesideTheResultsFileUnlessNamed) {
  EXPECT_EQ(page_path("runs/r.h5", ""), "runs/r.html");
  EXPECT_EQ(page_path("results", ""), "results.html");
  EXPECT_EQ(page_path("runs/r.h5", "out/page.htm"), "out/page.htm");
}

TEST(ReportPage, WritesThePageBesideTheResultsFile) {
  const std::string dir = fresh_folder("beside");
  const WrittenPage page = write_report_page({results_with(dir + "/r.h5", 2), "", false});
  EXPECT_EQ(page.path, dir + "/r.html");
  EXPECT_EQ(page.runs, 2u);
  EXPECT_TRUE(holds_report_page(page.path));
  EXPECT_THAT(file_bytes(page.path), HasSubstr("\"run_id\":\"run-1\""));
}

TEST(ReportPage, AFileWithoutRunsGivesAPage) {
  const std::string dir = fresh_folder("no_runs");
  const WrittenPage page = write_report_page({results_with(dir + "/r.h5", 0), "", false});
  EXPECT_EQ(page.runs, 0u);
  EXPECT_THAT(file_bytes(page.path), HasSubstr("\"runs\":[]"));
}

TEST(ReportPage, RefusesTheResultsFileItselfAlsoThroughALink) {
  const std::string dir = fresh_folder("itself");
  const std::string results = results_with(dir + "/r.h5", 1);
  fs::create_symlink(results, dir + "/link.html");
  EXPECT_EQ(refusal(results, results, true),
            "--html " + results + ": is the results file this report reads; name another file");
  EXPECT_THAT(refusal(results, dir + "/link.html", true),
              HasSubstr("is the results file this report reads"));
  EXPECT_EQ(fs::file_size(results), fs::file_size(dir + "/link.html"));
}

TEST(ReportPage, RefusesAFolderAFifoADeviceAndALinkToNothingEvenForced) {
  const std::string dir = fresh_folder("special");
  const std::string results = results_with(dir + "/r.h5", 1);
  ASSERT_EQ(mkfifo((dir + "/fifo").c_str(), 0600), 0);
  fs::create_symlink(dir + "/absent/p.html", dir + "/dangling");
  const std::pair<std::string, std::string> cases[] = {
      {dir, "is a folder, not a file to write"},
      {dir + "/fifo", "is a FIFO, not a file to write"},
      {"/dev/null", "is a character device, not a file to write"},
      {dir + "/dangling", "is a symbolic link to " + dir + "/absent/p.html, which does not exist"}};
  for (const auto& [path, said] : cases)
    EXPECT_EQ(refusal(results, path, true), "--html " + path + ": " + said);
}

TEST(ReportPage, RefusesAnotherFileUnlessForced) {
  const std::string dir = fresh_folder("other");
  const std::string results = results_with(dir + "/r.h5", 1);
  const std::string notes = put(dir + "/notes.html", "<p>my notes</p>\n");
  EXPECT_EQ(refusal(results, notes),
            "--html " + notes + ": is a file that is not what this command writes");
  EXPECT_EQ(file_bytes(notes), "<p>my notes</p>\n");
  EXPECT_EQ(refusal(results, notes, true), "");
  EXPECT_TRUE(holds_report_page(notes));
}

TEST(ReportPage, ReplacesAPageItWroteBefore) {
  const std::string dir = fresh_folder("again");
  const std::string results = results_with(dir + "/r.h5", 1);
  write_report_page({results, dir + "/p.html", false});
  results_with(results, 1);
  const WrittenPage page = write_report_page({results, dir + "/p.html", false});
  EXPECT_EQ(page.runs, 2u);
  EXPECT_THAT(file_bytes(dir + "/p.html"), HasSubstr("\"group\":\"run-0.2\""));
}

TEST(ReportPage, ADamagedResultsFileIsOneLineAndWritesNothing) {
  const std::string dir = fresh_folder("damaged");
  const std::string results = put(dir + "/r.h5", "not hdf5\n");
  try {
    write_report_page({results, "", false});
    FAIL() << "written";
  } catch (const DataError& e) {
    EXPECT_THAT(e.what(), HasSubstr(results + ": not an HDF5 file"));
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  EXPECT_FALSE(fs::exists(dir + "/r.html"));
}

// A folder that cannot hold it (a file stands where the folder should): one line naming the
// page, also for root, whom a read-only folder would not stop.
TEST(ReportPage, AnUnwritableFolderFailsInOneLineAndLeavesNothing) {
  const std::string dir = fresh_folder("unwritable");
  const std::string results = results_with(dir + "/r.h5", 1);
  std::ofstream(dir + "/not_a_folder") << "notes\n";
  try {
    write_report_page({results, dir + "/not_a_folder/p.html", false});
    FAIL() << "written";
  } catch (const Error& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr(dir + "/not_a_folder/p.html"));
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
  EXPECT_EQ(file_bytes(dir + "/not_a_folder"), "notes\n");
}

// The file size limit fails the write as a full disk would: the page written before stays
// whole and no temporary file is left.
TEST(ReportPage, AFailedWriteLeavesThePageBeforeWhole) {
  const std::string dir = fresh_folder("failed_write");
  const std::string results = results_with(dir + "/r.h5", 1);
  const std::string page = write_report_page({results, "", false}).path;
  const std::string before = file_bytes(page);
  rlimit limit{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &limit), 0);
  const auto old_handler = signal(SIGXFSZ, SIG_IGN);
  rlimit small = limit;
  small.rlim_cur = 4096;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string said;
  try {
    write_report_page({results, "", false});
  } catch (const DataError& e) {
    said = e.what();
  }
  setrlimit(RLIMIT_FSIZE, &limit);
  signal(SIGXFSZ, old_handler);
  EXPECT_EQ(said, "the file size limit (ulimit -f) stops the writing of " + page);
  EXPECT_EQ(file_bytes(page), before);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), {}), 3) << "r.h5, r.h5.lock, r.html";
}

}  // namespace
}  // namespace runner::report::html
