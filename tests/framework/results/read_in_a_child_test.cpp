// A trial read in a forked child: a crash there is the file's damage, named; what is not a
// crash is left to the real read.
#include "results/read_in_a_child.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <hdf5.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "results/read_runs.hpp"
#include "results/results.hpp"
#include "results_test_support.hpp"
#include "runner/errors.hpp"

using ::testing::HasSubstr;

namespace runner::results::detail {
namespace {

std::string error_of(const std::function<void()>& read) {
  try {
    read_first_in_a_child("/data/r.h5", read);
  } catch (const DataError& error) {
    return error.what();
  }
  return "no error";
}

// Under AddressSanitizer a SIGSEGV is the sanitizer's to report (its report in the output is
// expected), and the child exits with its code instead; SIGABRT is left alone.
TEST(ReadInAChild, ACrashSignalIsTheFilesDamage) {
  EXPECT_EQ(error_of([] { std::abort(); }),
            "/data/r.h5: damaged: reading it crashes the HDF5 library (SIGABRT in a trial read): "
            "a reference inside the file points at nothing");
  EXPECT_EQ(error_of([] {
              std::raise(SIGSEGV);
            }).rfind("/data/r.h5: damaged: reading it crashes the HDF5 library (", 0),
            0u);
}

TEST(ReadInAChild, ASanitizersExitCodeIsACrash) {
  EXPECT_THAT(error_of([] { std::_Exit(1); }), HasSubstr("(exit code 1 in a trial read)"));
}

TEST(ReadInAChild, AnErrorOrAnInterruptIsLeftToTheRealRead) {
  EXPECT_EQ(error_of([] { throw std::runtime_error("unreadable"); }), "no error");
  EXPECT_EQ(error_of([] { throw DataError("cut short"); }), "no error");
  EXPECT_EQ(error_of([] { std::raise(SIGTERM); }), "no error");
  EXPECT_EQ(error_of([] {}), "no error");
}

TEST(ReadInAChild, TheChildDoesNotForkAgain) {
  EXPECT_EQ(error_of([] {
              try {
                read_first_in_a_child("/data/r.h5", [] { std::raise(SIGSEGV); });
              } catch (...) {
              }
              std::_Exit(0);  // the nested read was skipped, not run in a grandchild
            }),
            "no error");
}

// The results fuzzer's input that crashed libhdf5 1.10.8 (Debian 12) in H5HG_read: a string's
// reference to a heap object that does not exist. HDF5 1.14 (Debian 13) reports a bad heap
// index instead of crashing: the run that holds the reference is then read as damaged.
TEST(ReadInAChild, AResultsFileWhoseReferenceCrashesHdf5IsRefused) {
  testing::ScratchFolder dir;
  const std::string path = dir.file("crafted.h5");
  std::filesystem::copy_file(RUNNER_SOURCE_DIR "/tests/fuzz/corpus/results/hdf5_heap_index.h5",
                             path);
#if H5_VERSION_GE(1, 14, 0)
  const std::vector<RunRecord> runs = read_runs(path);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_THAT(runs[0].damage, HasSubstr("bad heap index")) << runs[0].damage;
#else
  try {
    read_runs(path);
    ADD_FAILURE() << "read without an error";
  } catch (const DataError& error) {
    EXPECT_EQ(std::string(error.what()).rfind(path + ": damaged: reading it crashes the HDF5", 0),
              0u)
        << error.what();
  }
#endif
}

}  // namespace
}  // namespace runner::results::detail
