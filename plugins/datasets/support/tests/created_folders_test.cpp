// CreatedFolders: the folders a download made are taken away when it left them empty, and only
// those.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <runner/datasets/created_folders.hpp>
#include <runner/errors.hpp>

#include "scratch_folder.hpp"

using ::testing::HasSubstr;

namespace runner::datasets::testing {
namespace {

using CreatedFoldersTest = ScratchFolderTest;

TEST_F(CreatedFoldersTest, CreatesTheFolderAndItsParents) {
  const CreatedFolders folders(dir_ / "a" / "b");
  EXPECT_TRUE(std::filesystem::is_directory(dir_ / "a" / "b"));
}

TEST_F(CreatedFoldersTest, RemovesThemWhenLeftEmpty) {
  { const CreatedFolders folders(dir_ / "a" / "b"); }
  EXPECT_TRUE(names_in(dir_).empty());
}

TEST_F(CreatedFoldersTest, KeepsThoseThatHoldAFile) {
  {
    const CreatedFolders folders(dir_ / "a" / "b");
    write_text(dir_ / "a" / "b" / "file", "x");
  }
  EXPECT_TRUE(std::filesystem::exists(dir_ / "a" / "b" / "file"));
}

TEST_F(CreatedFoldersTest, LeavesAFolderThatWasThereBefore) {
  std::filesystem::create_directories(dir_ / "a");
  { const CreatedFolders folders(dir_ / "a" / "b"); }
  EXPECT_EQ(names_in(dir_), std::set<std::string>{"a"});
  EXPECT_TRUE(names_in(dir_ / "a").empty());
}

TEST_F(CreatedFoldersTest, AFolderThatCannotBeCreatedIsADataErrorNamingIt) {
  write_text(dir_ / "a_file", "x");
  const std::filesystem::path dir = dir_ / "a_file" / "b";
  try {
    const CreatedFolders folders(dir);
    ADD_FAILURE() << "created a folder inside a file";
  } catch (const runner::DataError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr(dir.string() + ": cannot create the folder"))
        << e.what();
  }
  EXPECT_EQ(names_in(dir_), std::set<std::string>{"a_file"});
}

}  // namespace
}  // namespace runner::datasets::testing
