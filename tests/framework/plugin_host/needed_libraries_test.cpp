// The libraries a plugin asks the loader for, read from its file without loading it.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "fixtures.hpp"
#include "plugin_host/needed_libraries.hpp"

namespace runner::plugin_host {
namespace {

using runner::testing::fixture_library;
using runner::testing::fresh_dir;

bool has(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

TEST(NeededLibraries, APluginAsksForLibTorchAndTheCxxRuntime) {
  const auto names = needed_libraries(fixture_library("good"));
  EXPECT_TRUE(has(names, "libstdc++.so.6"));
  EXPECT_TRUE(std::any_of(names.begin(), names.end(),
                          [](const std::string& n) { return n.rfind("libc10.so", 0) == 0; }));
}

TEST(NeededLibraries, ALibraryOfAnotherReleaseIsListedByItsFullName) {
  EXPECT_TRUE(has(needed_libraries(fixture_library("other_torch")), "libc10.so.0.4"));
}

TEST(NeededLibraries, AFileWithoutADynamicSectionListsNothing) {
  const std::string path = fresh_dir("needed_none") + "/text.so";
  std::ofstream(path) << "no ELF header here, only text";
  EXPECT_TRUE(needed_libraries(path).empty());
  EXPECT_TRUE(needed_libraries(path + ".missing").empty());
}

// Every prefix of a real library: a table past the end gives fewer names, never a crash.
TEST(NeededLibraries, ALibraryCutShortListsAtMostWhatTheWholeOneDoes) {
  std::ifstream in(fixture_library("good"), std::ios::binary);
  const std::string whole(std::istreambuf_iterator<char>(in), {});
  const size_t all = needed_libraries(fixture_library("good")).size();
  const std::string path = fresh_dir("needed_cut") + "/cut.so";
  for (size_t length = 0; length < whole.size(); length += whole.size() / 97 + 1) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << whole.substr(0, length);
    EXPECT_LE(needed_libraries(path).size(), all) << length;
  }
}

}  // namespace
}  // namespace runner::plugin_host
