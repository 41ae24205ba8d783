// Libraries tried in a child process before the host loads them: one whose constructor crashes,
// throws, exits or hangs is named with how and passed over; one that loads is remembered in the
// cache; a library that is no plugin runs no code at all.
#include "plugin_host/library_probe.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <unistd.h>

#include "fixtures.hpp"
#include "load_error.hpp"
#include "plugin_host/registry.hpp"

using ::testing::HasSubstr;

namespace runner::plugin_host {
namespace {

using runner::testing::fixture_dir;
using runner::testing::fixture_library;
using runner::testing::fresh_dir;

// Each test its own cache (ctest runs them side by side, each in a process of its own), and the
// fixture's constructor told what to do.
class LibraryProbe : public ::testing::Test {
 protected:
  void SetUp() override {
    cache_ = fresh_dir(std::string("probe_cache_") +
                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    setenv("XDG_CACHE_HOME", cache_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("XDG_CACHE_HOME");
    unsetenv("FIXTURE_CONSTRUCTOR");
  }
  static std::optional<std::string> probed_with(const char* constructor) {
    setenv("FIXTURE_CONSTRUCTOR", constructor, 1);
    return probe_failure(fixture_library("constructor"));
  }
  std::string cache_;
};

TEST_F(LibraryProbe, ACrashIsNamedWithItsSignal) {
  EXPECT_EQ(probed_with("segfault"), "crashed with signal 11 (SIGSEGV) while loading");
}

// glibc 2.36 ends the child in std::terminate, 2.41 lets the exception out of dlopen: the
// same answer either way.
TEST_F(LibraryProbe, AnExceptionFromAConstructorIsNamedWithWhatItSays) {
  EXPECT_EQ(probed_with("throw"), "threw an exception while loading: the fixture's constructor");
}

TEST_F(LibraryProbe, AConstructorThatEndsTheProcessIsNamed) {
  EXPECT_EQ(probed_with("exit"),
            "called exit() while loading (a constructor that ends the process)");
}

// The test process's own exit handler, which writes a file when a process other than the test
// runs it: a probe child that ran the host's handlers.
std::string exit_marker;
pid_t test_process = 0;
void mark_exit_in_a_child() {
  if (getpid() != test_process) std::ofstream(exit_marker) << "ran in a child\n";
}

// A constructor's exit() ends the child before the handlers it inherited from the host: they
// could flush or remove the host's files from a second process.
TEST_F(LibraryProbe, AConstructorsExitRunsNoneOfTheHostsExitHandlers) {
  exit_marker = cache_ + "/exit_marker";
  test_process = getpid();
  std::atexit(mark_exit_in_a_child);
  EXPECT_EQ(probed_with("exit"),
            "called exit() while loading (a constructor that ends the process)");
  EXPECT_FALSE(std::filesystem::exists(exit_marker));
}

// What loaded once, unchanged, is not tried again: the cache holds its line.
// A constructor that never returns: the child is killed at the limit, the library named, and
// the probe answers in about the limit.
TEST_F(LibraryProbe, AConstructorThatHangsIsNamedAtTheLimit) {
  setenv("FIXTURE_CONSTRUCTOR", "hang", 1);
  const auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(probe_failure(fixture_library("constructor"), 1), "did not finish loading in 1 s");
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(20));
}

TEST_F(LibraryProbe, ALibraryThatLoadsIsRemembered) {
  EXPECT_EQ(probed_with("nothing"), std::nullopt);
  const auto cache = std::filesystem::path(cache_) / "runner";
  ASSERT_TRUE(std::filesystem::is_directory(cache));
  const auto file = std::filesystem::directory_iterator(cache)->path();
  std::ifstream in(file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text, HasSubstr(" " + fixture_library("constructor") + "\n"));
  EXPECT_EQ(probed_with("segfault"), std::nullopt);  // not tried: it did not change
}

// Failed ones are tried every time, so a fixed library is loaded again at once.
TEST_F(LibraryProbe, AFailureIsNotRemembered) {
  EXPECT_NE(probed_with("segfault"), std::nullopt);
  EXPECT_EQ(probed_with("nothing"), std::nullopt);
}

TEST_F(LibraryProbe, TheRegistryPassesOverACrashingLibraryAndLoadsTheRest) {
  setenv("FIXTURE_CONSTRUCTOR", "segfault", 1);
  Registry registry;
  registry.load_directories({fixture_dir("constructor"), fixture_dir("good")});
  ASSERT_EQ(registry.passed_over().size(), 1u);
  EXPECT_EQ(registry.passed_over()[0],
            fixture_library("constructor") + ": crashed with signal 11 (SIGSEGV) while loading");
  EXPECT_NE(registry.find(Kind::dataset, "blobs"), nullptr);
}

// The entry is looked for in the file: the library's constructor never runs, in a child or here.
TEST_F(LibraryProbe, ALibraryThatIsNoPluginRunsNoCode) {
  const std::string mark = fresh_dir("probe_mark") + "/ran";
  setenv("FIXTURE_MARK", mark.c_str(), 1);
  EXPECT_EQ(probe_failure(fixture_library("no_entry")), std::nullopt);
  EXPECT_THAT(runner::testing::load_error(fixture_library("no_entry")),
              HasSubstr("has no entry symbol 'runner_plugin_entry'"));
  unsetenv("FIXTURE_MARK");
  EXPECT_FALSE(std::filesystem::exists(mark));
}

}  // namespace
}  // namespace runner::plugin_host
