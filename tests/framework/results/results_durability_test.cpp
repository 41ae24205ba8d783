// A writer killed with SIGKILL leaves a file that read_runs opens, holding every epoch that
// was appended (and so flushed) before the kill. The writer is a forked child: only a real
// kill shows what reaches the disk.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "results/read_runs.hpp"
#include "results/results.hpp"
#include "results_test_support.hpp"

namespace runner::results {
namespace {

using testing::sample_epoch;
using testing::sample_header;
using testing::sample_step;
using testing::ScratchFolder;

constexpr int64_t kEpochsBeforeMarker = 3;
constexpr int kMarkerTimeoutMs = 60'000;

// The child's whole life: write `kEpochsBeforeMarker` epochs (and a step each), tell the
// parent, then keep appending (`pause` apart) until killed. Never returns into the test
// framework.
[[noreturn]] void write_until_killed(const std::string& path, int marker_fd,
                                     std::chrono::milliseconds pause) {
  try {
    auto file = ResultsFile::open(path);
    auto run = file->begin_run(sample_header("killed"));
    for (int64_t epoch = 1;; ++epoch) {
      run->append_steps({sample_step(epoch)});
      run->append_epoch(sample_epoch(epoch));
      if (epoch == kEpochsBeforeMarker && write(marker_fd, "x", 1) != 1) _exit(2);
      if (epoch >= kEpochsBeforeMarker) std::this_thread::sleep_for(pause);
    }
  } catch (...) {
    _exit(1);
  }
}

bool marker_arrived(int marker_fd) {
  pollfd readable{marker_fd, POLLIN, 0};
  char byte = 0;
  return poll(&readable, 1, kMarkerTimeoutMs) == 1 && read(marker_fd, &byte, 1) == 1;
}

// Forks a writer, kills it `delay` after its marker, and returns what the file then holds.
std::vector<RunRecord> runs_after_killing_writer(const std::string& path,
                                                 std::chrono::milliseconds pause,
                                                 std::chrono::milliseconds delay) {
  int marker[2];
  if (pipe(marker) != 0) throw std::runtime_error("pipe failed");
  const pid_t child = fork();
  if (child < 0) throw std::runtime_error("fork failed");
  if (child == 0) {
    close(marker[0]);
    write_until_killed(path, marker[1], pause);
  }
  close(marker[1]);
  const bool arrived = marker_arrived(marker[0]);
  close(marker[0]);
  std::this_thread::sleep_for(delay);
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(arrived) << "the writer failed before its third epoch";
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "the writer ended before the kill";
  return read_runs(path);
}

// Every epoch read back is the one written; `intact` runs must also hold the flushed ones.
void expect_killed_run(const std::vector<RunRecord>& runs, bool intact) {
  ASSERT_EQ(runs.size(), 1u);
  const RunRecord& run = runs[0];
  if (intact) {
    EXPECT_EQ(run.damage, "");
    ASSERT_GE(run.epochs.size(), static_cast<size_t>(kEpochsBeforeMarker));
    ASSERT_GE(run.steps.size(), static_cast<size_t>(kEpochsBeforeMarker));
  }
  EXPECT_EQ(run.status, Status::running);
  EXPECT_FALSE(run.summary.has_value());
  for (size_t i = 0; i < run.epochs.size(); ++i)
    testing::expect_same_epoch(run.epochs[i], sample_epoch(static_cast<int64_t>(i) + 1));
  for (size_t i = 0; i < run.steps.size(); ++i)
    EXPECT_EQ(run.steps[i].loss, sample_step(static_cast<int64_t>(i) + 1).loss);
}

// What a writer killed inside an append can leave on disk: every series one row longer, the
// row never written (HDF5's fill value, 0). That row is not read back as a zero epoch.
TEST(ResultsDurability, ARowExtendedButNeverWrittenIsNotRead) {
  ScratchFolder folder;
  const std::string path = folder.file("extended.h5");
  {
    auto run = ResultsFile::open(path)->begin_run(sample_header("killed"));
    for (int64_t epoch = 1; epoch <= 3; ++epoch) run->append_epoch(sample_epoch(epoch));
  }
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  const hid_t epochs = H5Gopen2(file, "killed/epochs", H5P_DEFAULT);
  ASSERT_GE(epochs, 0);
  H5Literate(
      epochs, H5_INDEX_NAME, H5_ITER_NATIVE, nullptr,
      [](hid_t group, const char* name, const H5L_info_t*, void*) -> herr_t {
        const hid_t series = H5Dopen2(group, name, H5P_DEFAULT);
        const hsize_t longer[1] = {4};
        H5Dset_extent(series, longer);
        H5Dclose(series);
        return 0;
      },
      nullptr);
  H5Gclose(epochs);
  H5Fclose(file);
  const std::vector<RunRecord> runs = read_runs(path);
  ASSERT_EQ(runs.size(), 1u);
  ASSERT_EQ(runs[0].epochs.size(), 3u);
  for (int64_t epoch = 1; epoch <= 3; ++epoch)
    testing::expect_same_epoch(runs[0].epochs[epoch - 1], sample_epoch(epoch));
}

TEST(ResultsDurability, KillBetweenFlushesKeepsEveryAppendedEpoch) {
  ScratchFolder folder;
  const std::string path = folder.file("killed.h5");
  using std::chrono::milliseconds;
  // The kill lands in the writer's long pause, well clear of any write.
  expect_killed_run(runs_after_killing_writer(path, milliseconds(2000), milliseconds(100)),
                    /*intact=*/true);
}

// Killed in the middle of an append or its flush (no pause between appends), a run can be
// damaged: HDF5 has no journal. The file must still open and list the run, and what is read
// back must be what was written.
TEST(ResultsDurability, KillDuringAppendsLeavesAReadableFile) {
  using std::chrono::milliseconds;
  for (int delay_ms : {0, 1, 3, 7, 15}) {
    ScratchFolder folder;
    const std::string path = folder.file("busy.h5");
    SCOPED_TRACE("killed " + std::to_string(delay_ms) + " ms after the marker");
    expect_killed_run(runs_after_killing_writer(path, milliseconds(0), milliseconds(delay_ms)),
                      /*intact=*/false);
  }
}

}  // namespace
}  // namespace runner::results
