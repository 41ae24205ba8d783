// A run folder's lock: one holder at a time, released with its holder, and its side file beside
// the folder, never in it (where it would be taken for a step).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "checkpoint/run_folder_lock.hpp"
#include "checkpoint_test_support.hpp"
#include "runner/errors.hpp"
#include "runner_testing/error_message.hpp"

using ::testing::HasSubstr;

namespace runner::testing {
namespace {

namespace fs = std::filesystem;

TEST(RunFolderLock, ASecondHolderIsRefusedUntilTheFirstLetsGo) {
  const std::string run_folder = fresh_folder("run_folder_lock") + "/checkpoints/abc";
  {
    const auto first = checkpoint::lock_run_folder(run_folder);
    EXPECT_TRUE(fs::is_regular_file(run_folder + ".lock"));
    EXPECT_FALSE(fs::exists(run_folder));  // a folder made early would hide an earlier id's
    // flock refuses a second open of the file even in one process: as another runner would be.
    EXPECT_EQ(message_of<DataError>([&] { checkpoint::lock_run_folder(run_folder); }),
              run_folder + ": another runner process is training this run into it");
  }
  EXPECT_NO_THROW(checkpoint::lock_run_folder(run_folder));
}

TEST(RunFolderLock, AFolderItCannotWriteInIsNamed) {
  const std::string parent = fresh_folder("run_folder_lock_read_only");
  std::ofstream(parent + "/file") << "not a folder\n";
  const std::string run_folder = parent + "/file/abc";  // under a file: no folder can be made
  EXPECT_THAT(message_of<DataError>([&] { checkpoint::lock_run_folder(run_folder); }),
              HasSubstr("cannot create the lock file " + run_folder +
                        ".lock of checkpoint "
                        "folder " +
                        run_folder + ": Not a directory"));
}

}  // namespace
}  // namespace runner::testing
