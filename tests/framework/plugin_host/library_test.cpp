// Tests of loading a plugin library: a good one listed, bad files, ABI and LibTorch mismatches.
#include <gtest/gtest.h>

#include <fstream>

#include "fixtures.hpp"
#include "load_error.hpp"
#include "plugin_host/library.hpp"

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
  EXPECT_NE(message.find("not a plugin library"), std::string::npos) << message;
  EXPECT_NE(message.find(path), std::string::npos) << message;
}

TEST(Library, AMissingEntrySymbolIsNamed) {
  std::string message = load_error(fixture_library("no_entry"));
  EXPECT_NE(message.find("no entry symbol 'runner_plugin_entry'"), std::string::npos) << message;
}

TEST(Library, AnAbiMismatchNamesBothVersions) {
  std::string message = load_error(fixture_library("wrong_abi"));
  EXPECT_NE(message.find("runner ABI 999"), std::string::npos) << message;
  EXPECT_NE(message.find("this runner has ABI " + std::to_string(RUNNER_ABI_VERSION)),
            std::string::npos)
      << message;
}

TEST(Library, ALibTorchMismatchNamesBothVersions) {
  std::string message = load_error(fixture_library("wrong_torch"));
  EXPECT_NE(message.find("LibTorch 0.4.1"), std::string::npos) << message;
  EXPECT_NE(message.find("LibTorch " TORCH_VERSION), std::string::npos) << message;
}

// Its header is never read: the loader cannot find libc10.so.0.4, and that name says 0.4.
TEST(Library, APluginNeedingAnotherReleasesLibTorchNamesBothVersions) {
  std::string message = load_error(fixture_library("other_torch"));
  EXPECT_NE(message.find("was built with LibTorch 0.4 (it needs libc10.so.0.4)"), std::string::npos)
      << message;
  EXPECT_NE(message.find("this runner uses LibTorch " TORCH_VERSION), std::string::npos) << message;
}

TEST(Library, CheckHeaderRefusesAnotherCxxAbi) {
  PluginHeader header{RUNNER_ABI_VERSION, RUNNER_VERSION, TORCH_VERSION, 1 - RUNNER_CXX11_ABI,
                      nullptr};
  try {
    check_header(header, "x.so");
    ADD_FAILURE() << "a library of another C++ ABI was accepted";
  } catch (const PluginError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("plugin x.so"), std::string::npos) << message;
    EXPECT_NE(message.find("_GLIBCXX_USE_CXX11_ABI=" + std::to_string(1 - RUNNER_CXX11_ABI)),
              std::string::npos)
        << message;
  }
}

}  // namespace
}  // namespace runner::plugin_host
