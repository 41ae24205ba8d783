// runner's own lock on a results file: a second writer, in another process, is refused before
// it opens the file, whatever HDF5_USE_FILE_LOCKING says; readers read meanwhile. The writers
// are forked children, so each is a process of its own with its own environment.
#include "results/writer_lock.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>

#include "results/read_runs.hpp"
#include "results/results.hpp"
#include "results_test_support.hpp"
#include "runner/errors.hpp"

using ::testing::HasSubstr;

namespace runner::results {
namespace {

using testing::sample_epoch;
using testing::sample_header;
using testing::ScratchFolder;

constexpr int kWaitMs = 60'000;
// A child's exit codes beside DataError's 4.
constexpr int kOpened = 0;
constexpr int kOtherFailure = 1;

// A pipe from a child to its parent (or back) carrying one text.
class Pipe {
 public:
  Pipe() {
    if (pipe(ends_) != 0) throw std::runtime_error("pipe failed");
  }
  ~Pipe() {
    close(ends_[0]);
    close(ends_[1]);
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;

  void send(const std::string& text) {
    if (write(ends_[1], text.data(), text.size()) != static_cast<ssize_t>(text.size()))
      throw std::runtime_error("write to a pipe failed");
  }

  // Waits (at most kWaitMs) for the first bytes sent; "" when none came.
  std::string receive() {
    pollfd readable{ends_[0], POLLIN, 0};
    if (poll(&readable, 1, kWaitMs) != 1) return "";
    char text[512];
    const ssize_t length = read(ends_[0], text, sizeof text);
    return length > 0 ? std::string(text, static_cast<size_t>(length)) : "";
  }

 private:
  int ends_[2] = {-1, -1};
};

// Runs `body` in a forked child that exits with the code it returns (kOtherFailure when it
// throws), never returning into the test framework nor running the parent's atexit handlers.
pid_t fork_child(const std::function<int()>& body) {
  const pid_t child = fork();
  if (child < 0) throw std::runtime_error("fork failed");
  if (child == 0) {
    int code = kOtherFailure;
    try {
      code = body();
    } catch (...) {
    }
    _exit(code);
  }
  return child;
}

// The child's exit code; 128 + the signal that ended it.
int exit_code_of(pid_t child) {
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Sets HDF5_USE_FILE_LOCKING to `value`, or unsets it for "", in a child forked while this
// process had no HDF5 file open. HDF5 (1.10.8) reads the variable when the library starts:
// H5close ends it, and the next call starts it again under the new setting.
void set_hdf5_locking(const std::string& value) {
  if (value.empty())
    unsetenv("HDF5_USE_FILE_LOCKING");
  else
    setenv("HDF5_USE_FILE_LOCKING", value.c_str(), 1);
  H5close();
}

// Tries to open the file for writing; sends what a refusal said.
int try_to_write(const std::string& path, Pipe& said) {
  try {
    ResultsFile::open(path)->begin_run(sample_header("second"));
  } catch (const DataError& error) {
    said.send(error.what());
    return error.exit_code();
  }
  return kOpened;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

void write_completed_run(const std::string& path, const std::string& run_id) {
  auto run = ResultsFile::open(path)->begin_run(sample_header(run_id));
  run->append_epoch(sample_epoch(1));
  run->set_status(Status::completed);
}

// A writer in a child: it opens the file, writes a run's first epoch, says "open", and waits
// for "go" before its second epoch and its final status.
pid_t fork_first_writer(const std::string& path, const std::string& locking, Pipe& ready,
                        Pipe& go) {
  return fork_child([&] {
    set_hdf5_locking(locking);
    auto file = ResultsFile::open(path);
    auto run = file->begin_run(sample_header("first"));
    run->append_epoch(sample_epoch(1));
    ready.send("open");
    if (go.receive() != "go") return kOtherFailure;
    run->append_epoch(sample_epoch(2));
    run->set_status(Status::completed);
    return kOpened;
  });
}

// Whether HDF5 itself, under this environment, lets a second process open the file a writer
// holds: with HDF5_USE_FILE_LOCKING=FALSE it does, and only runner's lock stands in the way.
bool hdf5_lets_a_second_opener_in(const std::string& path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) return false;
  H5Fclose(file);
  return true;
}

// The parameter: HDF5_USE_FILE_LOCKING in the writers' environment ("" for unset).
class WithHdf5Locking : public ::testing::TestWithParam<std::string> {};

TEST_P(WithHdf5Locking, ASecondWriterIsRefusedAndEveryRunSurvives) {
  ScratchFolder folder;
  const std::string path = folder.file("r.h5");
  write_completed_run(path, "earlier");
  Pipe ready, go, said, hdf5_said;
  const pid_t first = fork_first_writer(path, GetParam(), ready, go);
  ASSERT_EQ(ready.receive(), "open") << "the first writer failed before its first epoch";

  const pid_t second = fork_child([&] {
    set_hdf5_locking(GetParam());
    hdf5_said.send(hdf5_lets_a_second_opener_in(path) ? "lets in" : "refuses");
    return try_to_write(path, said);
  });
  EXPECT_EQ(exit_code_of(second), 4) << "the exit code of a DataError";
  EXPECT_EQ(said.receive(), path + ": another runner process is writing it");
  EXPECT_EQ(hdf5_said.receive(), GetParam() == "FALSE" ? "lets in" : "refuses");

  const std::vector<RunRecord> meanwhile = read_runs(path);
  ASSERT_EQ(meanwhile.size(), 2u);
  EXPECT_EQ(meanwhile[1].status, Status::running);
  EXPECT_EQ(meanwhile[1].epochs.size(), 1u);
  EXPECT_FALSE(meanwhile[1].abandoned) << "its writer is alive";

  go.send("go");
  EXPECT_EQ(exit_code_of(first), kOpened) << "the first writer failed to finish";
  const std::vector<RunRecord> runs = read_runs(path);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].header.run_id, "earlier");
  EXPECT_EQ(runs[0].status, Status::completed);
  EXPECT_EQ(runs[0].epochs.size(), 1u);
  EXPECT_EQ(runs[1].header.run_id, "first");
  EXPECT_EQ(runs[1].status, Status::completed);
  EXPECT_EQ(runs[1].epochs.size(), 2u);
  for (const RunRecord& run : runs) EXPECT_EQ(run.damage, "") << run.group;
}

// A writer that died without recording an end leaves its run "running" in the file, and no
// lock held: the reader sees the run abandoned. A finished run never is.
TEST(WriterLock, ARunLeftRunningByADeadWriterIsAbandoned) {
  ScratchFolder folder;
  const std::string path = folder.file("r.h5");
  write_completed_run(path, "earlier");
  const pid_t killed = fork_child([&]() -> int {
    ResultsFile::open(path)->begin_run(sample_header("killed"))->append_epoch(sample_epoch(1));
    std::_Exit(kOpened);  // no destructor records an end, as after SIGKILL
  });
  EXPECT_EQ(exit_code_of(killed), kOpened);
  EXPECT_FALSE(being_written(path));
  const std::vector<RunRecord> runs = read_runs(path);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_FALSE(runs[0].abandoned);
  EXPECT_EQ(runs[1].status, Status::running);
  EXPECT_TRUE(runs[1].abandoned);
  auto file = ResultsFile::open(path);
  EXPECT_TRUE(being_written(path)) << "this process writes it now";
  EXPECT_FALSE(read_runs(path)[1].abandoned);
}

// The writer here is this process; the refused one, a forked child, leaves every byte alone.
TEST(WriterLock, ARefusedWriterLeavesTheFileAsItWas) {
  ScratchFolder folder;
  const std::string path = folder.file("r.h5");
  auto file = ResultsFile::open(path);
  file->begin_run(sample_header("a"))->append_epoch(sample_epoch(1));
  const std::string before = read_bytes(path);
  Pipe said;
  EXPECT_EQ(exit_code_of(fork_child([&] { return try_to_write(path, said); })), 4);
  EXPECT_EQ(said.receive(), path + ": another runner process is writing it");
  EXPECT_TRUE(read_bytes(path) == before) << "the refused writer changed the file";
}

TEST(WriterLock, ASymbolicLinkToTheFileSharesItsLock) {
  ScratchFolder folder;
  const std::string path = folder.file("r.h5");
  const std::string link = folder.file("link.h5");
  auto run = ResultsFile::open(path)->begin_run(sample_header("a"));
  std::filesystem::create_symlink(path, link);
  Pipe said;
  EXPECT_EQ(exit_code_of(fork_child([&] { return try_to_write(link, said); })), 4);
  EXPECT_EQ(said.receive(), link + ": another runner process is writing it");
}

TEST(WriterLock, IsReleasedWhenTheLastWriterCloses) {
  ScratchFolder folder;
  const std::string path = folder.file("r.h5");
  auto file = ResultsFile::open(path);
  auto run = file->begin_run(sample_header("a"));
  file.reset();
  Pipe said;
  EXPECT_EQ(exit_code_of(fork_child([&] { return try_to_write(path, said); })), 4)
      << "a run writer keeps the file open, and locked, after its ResultsFile is gone";
  run.reset();
  EXPECT_EQ(exit_code_of(fork_child([&] { return try_to_write(path, said); })), kOpened);
  EXPECT_EQ(read_runs(path).size(), 2u);
}

TEST(WriterLock, IsReleasedWhenTheWriterIsKilled) {
  ScratchFolder folder;
  const std::string path = folder.file("r.h5");
  Pipe ready;
  const pid_t writer = fork_child([&] {
    auto run = ResultsFile::open(path)->begin_run(sample_header("killed"));
    ready.send("open");
    pause();
    return kOtherFailure;
  });
  ASSERT_EQ(ready.receive(), "open");
  kill(writer, SIGKILL);
  EXPECT_EQ(exit_code_of(writer), 128 + SIGKILL);
  EXPECT_NO_THROW(ResultsFile::open(path)->begin_run(sample_header("after")));
  EXPECT_EQ(read_runs(path).size(), 2u);
}

// HDF5 shares one open file among a process's opens of it; runner's lock does the same.
TEST(WriterLock, OneProcessMayOpenTheFileTwice) {
  ScratchFolder folder;
  const std::string path = folder.file("r.h5");
  auto first = ResultsFile::open(path);
  auto second = ResultsFile::open(path);
  first->begin_run(sample_header("a"));
  second->begin_run(sample_header("b"));
  EXPECT_EQ(read_runs(path).size(), 2u);
}

// HDF5 refuses a second open of a file this process has open with other locking: a process
// reads the file it writes, whatever the environment says.
TEST_P(WithHdf5Locking, AWriterReadsItsOwnFile) {
  ScratchFolder folder;
  const std::string path = folder.file("r.h5");
  Pipe said;
  const pid_t writer = fork_child([&] {
    set_hdf5_locking(GetParam());
    auto run = ResultsFile::open(path)->begin_run(sample_header("a"));
    run->append_epoch(sample_epoch(1));
    said.send(std::to_string(read_runs(path).at(0).epochs.size()));
    return kOpened;
  });
  EXPECT_EQ(exit_code_of(writer), kOpened);
  EXPECT_EQ(said.receive(), "1");
}

INSTANTIATE_TEST_SUITE_P(Variable, WithHdf5Locking, ::testing::Values("", "FALSE"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param.empty() ? std::string("Unset") : info.param;
                         });

// With HDF5_USE_FILE_LOCKING=TRUE the reader takes HDF5's lock after all, which the writer
// holds: the hint names the variable.
TEST(WriterLock, AReaderTheEnvironmentMakesLockIsToldWhy) {
  ScratchFolder folder;
  const std::string path = folder.file("r.h5");
  Pipe ready, go, said;
  const pid_t writer = fork_first_writer(path, "", ready, go);
  ASSERT_EQ(ready.receive(), "open");
  const pid_t reader = fork_child([&] {
    set_hdf5_locking("TRUE");
    try {
      read_runs(path);
    } catch (const DataError& error) {
      said.send(std::string(error.what()) + "\n" + error.hint());
      return error.exit_code();
    }
    return kOpened;
  });
  EXPECT_EQ(exit_code_of(reader), 4);
  const std::string message = said.receive();
  EXPECT_EQ(message.rfind(path + ": cannot open the file: unable to lock file", 0), 0u) << message;
  EXPECT_THAT(message, HasSubstr("unset the variable")) << message;
  go.send("go");
  EXPECT_EQ(exit_code_of(writer), kOpened);
}

TEST(WriterLock, ALockFileThatCannotBeCreatedIsNamed) {
  ScratchFolder folder;
  const std::string path = folder.file("r.h5");
  std::filesystem::create_directory(path + ".lock");
  try {
    ResultsFile::open(path);
    ADD_FAILURE() << "opened without its lock";
  } catch (const DataError& error) {
    EXPECT_EQ(std::string(error.what()), "cannot create or open the lock file " + path +
                                             ".lock of results file " + path + ": Is a directory");
  }
  EXPECT_FALSE(std::filesystem::exists(path)) << "the results file was created unlocked";
}

TEST(WriterLock, AReadOnlyFolderIsNamed) {
  if (geteuid() == 0) GTEST_SKIP() << "root writes into read-only folders";
  ScratchFolder folder;
  const std::string locked_folder = folder.file("read-only");
  std::filesystem::create_directory(locked_folder);
  const std::string path = locked_folder + "/r.h5";
  chmod(locked_folder.c_str(), 0555);
  try {
    ResultsFile::open(path);
    ADD_FAILURE() << "opened without its lock";
  } catch (const DataError& error) {
    EXPECT_EQ(std::string(error.what()), "cannot create or open the lock file " + path +
                                             ".lock of results file " + path +
                                             ": Permission denied");
  }
  chmod(locked_folder.c_str(), 0755);
}

// Reading takes no lock, so it creates no lock file.
TEST(WriterLock, ReadingNeedsNoLockFile) {
  ScratchFolder folder;
  const std::string path = folder.file("r.h5");
  write_completed_run(path, "a");
  std::filesystem::remove(path + ".lock");
  EXPECT_EQ(read_runs(path).size(), 1u);
  EXPECT_FALSE(std::filesystem::exists(path + ".lock"));
}

}  // namespace
}  // namespace runner::results
