// Tests of loading a plugin library: a good one listed, bad files, ABI and LibTorch mismatches.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "fixtures.hpp"
#include "load_error.hpp"
#include "plugin_host/library.hpp"

using ::testing::HasSubstr;

namespace runner::plugin_host {
namespace {

using runner::testing::fixture_library;
using runner::testing::fresh_dir;
using runner::testing::load_error;

TEST(Library, LoadsAGoodPluginAndListsItsComponents) {
  auto library = Library::load(fixture_library("good"));
  ASSERT_EQ(library->components().size(), 7u);
  EXPECT_EQ(library->components()[0].name, "blobs");
  EXPECT_EQ(library->components()[0].kind, Kind::dataset);
  EXPECT_EQ(library->components()[1].name, "linear_probe");
  EXPECT_FALSE(library->components()[1].estimate_model);
  EXPECT_EQ(library->components()[2].name, "sized_probe");
  EXPECT_TRUE(library->components()[2].estimate_model);
  EXPECT_EQ(library->path(), fixture_library("good"));
}

TEST(Library, AFileThatIsNotALibraryIsRefusedByName) {
  std::string path = fresh_dir("not_plugin") + "/garbage.so";
  std::ofstream(path) << "this is not an ELF file";
  std::string message = load_error(path);
  EXPECT_THAT(message, HasSubstr("not a plugin library")) << message;
  EXPECT_THAT(message, HasSubstr(path)) << message;
}

TEST(Library, AMissingEntrySymbolIsNamed) {
  std::string message = load_error(fixture_library("no_entry"));
  EXPECT_THAT(message, HasSubstr("no entry symbol 'runner_plugin_entry'")) << message;
}

TEST(Library, AnAbiMismatchNamesBothVersions) {
  std::string message = load_error(fixture_library("wrong_abi"));
  EXPECT_THAT(message, HasSubstr("runner ABI 999")) << message;
  EXPECT_THAT(message, HasSubstr("this runner has ABI " + std::to_string(RUNNER_ABI_VERSION)))
      << message;
}

TEST(Library, ALibTorchMismatchNamesBothVersions) {
  std::string message = load_error(fixture_library("wrong_torch"));
  EXPECT_THAT(message, HasSubstr("LibTorch 0.4.1")) << message;
  EXPECT_THAT(message, HasSubstr("LibTorch " TORCH_VERSION)) << message;
}

// Its header is never read: the loader cannot find libc10.so.0.4, and that name says 0.4.
TEST(Library, APluginNeedingAnotherReleasesLibTorchNamesBothVersions) {
  std::string message = load_error(fixture_library("other_torch"));
  EXPECT_THAT(message, HasSubstr("was built with LibTorch 0.4 (it needs libc10.so.0.4)"))
      << message;
  EXPECT_THAT(message, HasSubstr("this runner uses LibTorch " TORCH_VERSION)) << message;
}

TEST(Library, CheckHeaderRefusesAnotherCxxAbi) {
  PluginHeader header{RUNNER_ABI_VERSION, RUNNER_VERSION, TORCH_VERSION, 1 - RUNNER_CXX11_ABI,
                      nullptr};
  try {
    check_header(header, "x.so");
    ADD_FAILURE() << "a library of another C++ ABI was accepted";
  } catch (const PluginError& e) {
    const std::string message = e.what();
    EXPECT_THAT(message, HasSubstr("plugin x.so")) << message;
    EXPECT_THAT(message,
                HasSubstr("_GLIBCXX_USE_CXX11_ABI=" + std::to_string(1 - RUNNER_CXX11_ABI)))
        << message;
  }
}

}  // namespace
}  // namespace runner::plugin_host
