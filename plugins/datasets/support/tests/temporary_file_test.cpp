// TemporaryFile: a hidden name beside its target, unique per object, removed unless renamed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <runner/datasets/temporary_file.hpp>
#include <runner/errors.hpp>

#include "runner_testing/files.hpp"
#include "scratch_folder.hpp"

using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace runner::datasets::testing {
namespace {

using TemporaryFileTest = ScratchFolderTest;

TEST_F(TemporaryFileTest, IsAHiddenPartFileBesideItsTarget) {
  TemporaryFile part(dir_ / "file.gz");
  EXPECT_EQ(part.path().parent_path(), dir_);
  EXPECT_THAT(part.path().filename().string(), StartsWith(".file.gz."));
  EXPECT_EQ(part.path().extension(), ".part");
  EXPECT_FALSE(std::filesystem::exists(part.path())) << "it only names the file";
}

TEST_F(TemporaryFileTest, TwoForOneTargetHaveTwoNames) {
  TemporaryFile first(dir_ / "file.gz");
  TemporaryFile second(dir_ / "file.gz");
  EXPECT_NE(first.path(), second.path());
}

TEST_F(TemporaryFileTest, IsRemovedWhenNotRenamed) {
  {
    TemporaryFile part(dir_ / "file.gz");
    write_text(part.path(), "partial");
  }
  EXPECT_TRUE(names_in(dir_).empty());
}

TEST_F(TemporaryFileTest, RenamedIsKeptUnderTheTargetsName) {
  {
    TemporaryFile part(dir_ / "file.gz");
    write_text(part.path(), "whole");
    part.rename_to(dir_ / "file.gz");
  }
  EXPECT_EQ(names_in(dir_), std::set<std::string>{"file.gz"});
  EXPECT_EQ(runner::testing::file_bytes(dir_ / "file.gz"), "whole");
}

TEST_F(TemporaryFileTest, ARenameThatFailsIsADataErrorNamingBothPaths) {
  TemporaryFile part(dir_ / "file.gz");
  const std::filesystem::path target = dir_ / "no" / "file.gz";
  try {
    part.rename_to(target);
    ADD_FAILURE() << "renamed a file that does not exist";
  } catch (const runner::DataError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr(part.path().string())) << e.what();
    EXPECT_THAT(std::string(e.what()), HasSubstr(target.string())) << e.what();
  }
}

}  // namespace
}  // namespace runner::datasets::testing
