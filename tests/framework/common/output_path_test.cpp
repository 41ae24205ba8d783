// check_output_file, check_output_folder and write_file_whole: a path a command writes is refused
// when it is an input (also through a link), a results file, a checkpoint's file, another file,
// a folder, a FIFO or a device, unless it holds the command's own kind or --force says so; a
// write that fails leaves the old file whole and no temporary file behind.
#include "common/output_path.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

using ::testing::HasSubstr;

namespace runner {
namespace {

namespace fs = std::filesystem;

std::string fresh_folder(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("runner_output_path_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

std::string put(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

bool holds_hello(const std::string& path) { return contents(path).rfind("hello", 0) == 0; }

OutputFile target_at(const std::string& path, const std::string& input) {
  return {"--out", path, {{input, "the file this command reads"}}, false, holds_hello};
}

// The refusal's message, or "" when the target is accepted.
std::string refusal(const OutputFile& target) {
  try {
    check_output_file(target);
    return "";
  } catch (const ConfigError& e) {
    return e.what();
  }
}

TEST(OutputFile, RefusesItsInputAlsoThroughALink) {
  const std::string dir = fresh_folder("input");
  const std::string input = put(dir + "/in.h5", "hello");
  fs::create_symlink(input, dir + "/link");
  EXPECT_EQ(refusal(target_at(input, input)),
            "--out " + input + ": is the file this command reads; name another file");
  EXPECT_THAT(refusal(target_at(dir + "/link", input)),
              HasSubstr("is the file this command reads"));
}

TEST(OutputFile, RefusesAFileInAnInputFolder) {
  const std::string dir = fresh_folder("input_folder");
  fs::create_directory(dir + "/ck");
  EXPECT_THAT(refusal(target_at(dir + "/ck/new.pt", dir + "/ck")),
              HasSubstr("is in " + dir + "/ck, the file this command reads"));
}

TEST(OutputFile, RefusesFilesOfAnotherKindUnlessForced) {
  const std::string dir = fresh_folder("kinds");
  const std::string results = put(dir + "/r.h5", std::string("\x89HDF\r\n\x1a\n", 8) + "rest");
  fs::create_directory(dir + "/step-1");
  put(dir + "/step-1/manifest.json", "{}");
  const std::string shard = put(dir + "/step-1/rank-0.safetensors", "shard");
  const std::string notes = put(dir + "/notes.txt", "notes");
  EXPECT_THAT(refusal(target_at(results, "")), HasSubstr("is a results file (HDF5)"));
  EXPECT_THAT(refusal(target_at(shard, "")),
              HasSubstr("is a file of the checkpoint " + dir + "/step-1"));
  EXPECT_EQ(refusal(target_at(notes, "")),
            "--out " + notes + ": is a file that is not what this command writes");
  OutputFile forced = target_at(notes, "");
  forced.force = true;
  EXPECT_EQ(refusal(forced), "");
}

// A results file's first line ends in CR as a CSV's does: its signature decides first.
TEST(OutputFile, AResultsFileIsNeverTakenForTheCommandsOwnKind) {
  const std::string dir = fresh_folder("signature_first");
  const std::string results = put(dir + "/r.csv", std::string("\x89HDF\r\n\x1a\n", 8));
  OutputFile target = target_at(results, "");
  target.holds_own_kind = [](const std::string&) { return true; };
  EXPECT_THAT(refusal(target), HasSubstr("is a results file (HDF5)"));
}

TEST(OutputFile, AcceptsANewPathAndAFileOfItsOwnKind) {
  const std::string dir = fresh_folder("own");
  EXPECT_EQ(refusal(target_at(dir + "/new.csv", "")), "");
  EXPECT_EQ(refusal(target_at(put(dir + "/old.csv", "hello, again"), "")), "");
}

TEST(OutputFile, RefusesAFolderAFifoADeviceAndALinkToNothingEvenForced) {
  const std::string dir = fresh_folder("special");
  ASSERT_EQ(mkfifo((dir + "/fifo").c_str(), 0600), 0);
  fs::create_symlink(dir + "/absent/x", dir + "/dangling");
  const std::pair<std::string, std::string> cases[] = {
      {dir, "is a folder, not a file to write"},
      {dir + "/fifo", "is a FIFO, not a file to write"},
      {"/dev/full", "is a character device, not a file to write"},
      {dir + "/dangling", "is a symbolic link to " + dir + "/absent/x, which does not exist"}};
  for (const auto& [path, said] : cases) {
    OutputFile forced = target_at(path, "");
    forced.force = true;
    EXPECT_THAT(refusal(forced), HasSubstr(path + ": " + said)) << path;
  }
}

std::string folder_refusal(const std::string& folder) {
  try {
    check_output_folder("[checkpoint] dir", folder);
    return "";
  } catch (const ConfigError& e) {
    return e.what();
  }
}

TEST(OutputFolder, RefusesWhatIsNoFolderAndACheckpoint) {
  const std::string dir = fresh_folder("folders");
  ASSERT_EQ(mkfifo((dir + "/fifo").c_str(), 0600), 0);
  put(dir + "/r.h5", std::string("\x89HDF\r\n\x1a\n", 8));
  fs::create_directory(dir + "/step-1");
  put(dir + "/step-1/manifest.json", "{}");
  EXPECT_EQ(folder_refusal(dir), "");
  EXPECT_EQ(folder_refusal(dir + "/new/deeper"), "");
  EXPECT_EQ(folder_refusal(dir + "/fifo"),
            "[checkpoint] dir " + dir + "/fifo: is a FIFO, not a folder");
  EXPECT_THAT(folder_refusal(dir + "/r.h5"), HasSubstr("is a results file (HDF5), not a folder"));
  EXPECT_THAT(folder_refusal("/dev/null"), HasSubstr("is a character device, not a folder"));
  EXPECT_THAT(folder_refusal(dir + "/step-1"), HasSubstr("is a checkpoint's folder"));
}

TEST(WriteFileWhole, ReplacesTheFileAndKeepsItsMode) {
  const std::string dir = fresh_folder("write");
  const std::string path = put(dir + "/out.csv", "old");
  fs::permissions(path, fs::perms(0640));
  write_file_whole(path, "new text");
  EXPECT_EQ(contents(path), "new text");
  EXPECT_EQ(fs::status(path).permissions(), fs::perms(0640));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), {}), 1);
}

TEST(WriteFileWhole, WritesThroughALinkAndKeepsIt) {
  const std::string dir = fresh_folder("through_link");
  const std::string file = put(dir + "/real.csv", "old");
  fs::create_symlink(file, dir + "/link.csv");
  write_file_whole(dir + "/link.csv", "new");
  EXPECT_TRUE(fs::is_symlink(dir + "/link.csv"));
  EXPECT_EQ(contents(file), "new");
}

TEST(WriteFileWhole, AFolderThatIsNotThereIsOneLine) {
  const std::string dir = fresh_folder("missing");
  try {
    write_file_whole(dir + "/absent/out.csv", "text");
    FAIL() << "written";
  } catch (const DataError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot write " + dir + "/absent/out.csv: No such file or directory");
    EXPECT_EQ(e.exit_code(), 4);
  }
}

// The process's file size limit fails the write as a full disk fails it: the old file stays
// whole, the temporary one is gone.
TEST(WriteFileWhole, AFailedWriteLeavesTheOldFileWhole) {
  const std::string dir = fresh_folder("failed");
  const std::string path = put(dir + "/out.csv", "old contents");
  rlimit before{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &before), 0);
  const auto old_handler = signal(SIGXFSZ, SIG_IGN);
  rlimit small = before;
  small.rlim_cur = 16;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string said;
  try {
    write_file_whole(path, std::string(4096, 'x'));
  } catch (const DataError& e) {
    said = e.what();
  }
  setrlimit(RLIMIT_FSIZE, &before);
  signal(SIGXFSZ, old_handler);
  EXPECT_EQ(said, "the file size limit (ulimit -f) stops the writing of " + path);
  EXPECT_EQ(contents(path), "old contents");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), {}), 1);
}

}  // namespace
}  // namespace runner
