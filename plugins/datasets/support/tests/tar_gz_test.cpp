// extract_tar_gz on archives written in the test: the chosen files' bytes, what is skipped,
// and every way an archive is refused (unsafe names, links, damage, truncation), on one line
// that starts with the name it was given.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <runner/datasets/tar_gz.hpp>
#include <runner/errors.hpp>

#include <algorithm>
#include <cstdint>

#include "runner_testing/files.hpp"
#include "scratch_folder.hpp"
#include "tar_writer.hpp"

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

namespace runner::datasets::testing {
namespace {

const char* const kShownAs = "http://example.org/set.tar.gz";

// `size` bytes that do not compress (a linear congruential generator's high bytes), so that a
// place in the gzip stream is about the same place in the data.
std::string pattern(size_t size, uint32_t seed) {
  std::string bytes;
  uint32_t state = seed;
  for (size_t i = 0; i < size; ++i) {
    state = state * 1103515245u + 12345u;
    bytes += static_cast<char>(state >> 24);
  }
  return bytes;
}

class TarGzTest : public ScratchFolderTest {
 protected:
  // Writes `archive` to a file and extracts every regular file into dir_/out/ under its
  // archive name with '/' as '_'; records the names offered.
  void extract(const std::string& archive) {
    const std::filesystem::path file = dir_ / "archive.tar.gz";
    write_text(file, archive);
    std::filesystem::create_directories(dir_ / "out");
    extract_tar_gz(file, kShownAs, [&](const std::string& name) {
      offered_.push_back(name);
      std::string flat = name;
      std::replace(flat.begin(), flat.end(), '/', '_');
      return std::optional<std::filesystem::path>(dir_ / "out" / flat);
    });
  }

  // The message of the DataError that extracting `archive` throws.
  std::string refusal(const std::string& archive) {
    try {
      extract(archive);
      ADD_FAILURE() << "the archive was extracted";
    } catch (const runner::DataError& e) {
      EXPECT_THAT(std::string(e.what()), StartsWith(std::string(kShownAs) + ": ")) << e.what();
      EXPECT_THAT(std::string(e.what()), Not(HasSubstr("\n"))) << e.what();
      return e.what();
    }
    return {};
  }

  std::string out(const std::string& flat_name) {
    return runner::testing::file_bytes(dir_ / "out" / flat_name);
  }

  std::vector<std::string> offered_;
};

TEST_F(TarGzTest, ExtractsEachRegularFileWithItsBytes) {
  const std::string a = pattern(size_t{3073} * 2, 1);
  const std::string b = pattern(1000, 2);
  extract(tar_gz({{"set/", "", '5'},
                  tar_file("set/a.bin", a),
                  tar_file("./set/b.bin", b),
                  tar_file("set/empty", "")}));
  EXPECT_EQ(offered_, (std::vector<std::string>{"set/a.bin", "set/b.bin", "set/empty"}))
      << "folders are not offered; a leading ./ is dropped";
  EXPECT_EQ(out("set_a.bin"), a);
  EXPECT_EQ(out("set_b.bin"), b);
  EXPECT_TRUE(std::filesystem::exists(dir_ / "out" / "set_empty"));
  EXPECT_EQ(out("set_empty"), "");
}

TEST_F(TarGzTest, WritesOnlyTheFilesTheCallerChooses) {
  const std::filesystem::path file = dir_ / "archive.tar.gz";
  write_text(file, tar_gz({tar_file("skip.txt", "skipped"), tar_file("keep.bin", "kept"),
                           tar_file("after.txt", pattern(700, 3))}));
  extract_tar_gz(file, kShownAs, [&](const std::string& name) {
    return name == "keep.bin" ? std::optional<std::filesystem::path>(dir_ / "kept") : std::nullopt;
  });
  EXPECT_EQ(runner::testing::file_bytes(dir_ / "kept"), "kept");
  EXPECT_EQ(names_in(dir_), (std::set<std::string>{"archive.tar.gz", "kept"}));
}

TEST_F(TarGzTest, ReadsGnuArchivesAndPosixLongNames) {
  extract(tar_gz({tar_file("gnu/a.bin", "gnu")}, /*gnu_magic=*/true));
  EXPECT_EQ(out("gnu_a.bin"), "gnu");
  const std::string folder(120, 'f');
  extract(tar_gz({tar_file(folder + "/long.bin", "long")}));
  EXPECT_EQ(offered_.back(), folder + "/long.bin");
  EXPECT_EQ(out(folder + "_long.bin"), "long");
}

TEST_F(TarGzTest, PaxHeadersAreSkipped) {
  extract(tar_gz(
      {{"PaxHeaders/a.bin", "30 mtime=1234567890.123456789\n", 'x'}, tar_file("a.bin", "data")}));
  EXPECT_EQ(offered_, std::vector<std::string>{"a.bin"});
  EXPECT_EQ(out("a.bin"), "data");
}

TEST_F(TarGzTest, AnAbsolutePathIsRefused) {
  std::string message = refusal(tar_gz({tar_file("ok.bin", "ok"), tar_file("/etc/x", "x")}));
  EXPECT_THAT(message, HasSubstr("refused: entry /etc/x has an absolute path")) << message;
}

TEST_F(TarGzTest, DotDotIsRefusedWhereverItStands) {
  std::string message = refusal(tar_gz({tar_file("../x", "x")}));
  EXPECT_THAT(message, HasSubstr("refused: entry ../x leads out of its folder")) << message;
  message = refusal(tar_gz({tar_file("set/../../x", "x")}));
  EXPECT_THAT(message, HasSubstr("refused: entry set/../../x")) << message;
  EXPECT_TRUE(offered_.empty()) << "nothing of a refused entry is offered";
}

TEST_F(TarGzTest, LinksAndDevicesAreRefused) {
  std::string message = refusal(tar_gz({{"set/a.bin", "", '2', "/etc/passwd"}}));
  EXPECT_THAT(message, HasSubstr("refused: entry set/a.bin is a symbolic link")) << message;
  message = refusal(tar_gz({tar_file("a.bin", "a"), {"b.bin", "", '1', "a.bin"}}));
  EXPECT_THAT(message, HasSubstr("refused: entry b.bin is a hard link")) << message;
  message = refusal(tar_gz({{"dev", "", '3'}}));
  EXPECT_THAT(message, HasSubstr("refused: entry dev is of type '3'")) << message;
}

TEST_F(TarGzTest, ACutArchiveIsTruncated) {
  std::string archive = tar_gz({tar_file("a.bin", pattern(20000, 4))});
  std::string message = refusal(archive.substr(0, archive.size() / 2));
  EXPECT_THAT(message, HasSubstr("truncated: the gzip data ends after")) << message;
}

TEST_F(TarGzTest, AnEntryCutShortIsTruncatedNamingIt) {
  std::string tar = tar_bytes({tar_file("a.bin", pattern(5000, 5))});
  std::string message = refusal(gzip_bytes(tar.substr(0, 512 + 3000)));
  EXPECT_THAT(message, HasSubstr("truncated: entry a.bin ends after 3000 of its 5000 bytes"))
      << message;
}

TEST_F(TarGzTest, AnArchiveWithoutItsEndBlockIsTruncated) {
  std::string tar = tar_bytes({tar_file("a.bin", pattern(512, 6))});
  std::string message = refusal(gzip_bytes(tar.substr(0, 1024)));
  EXPECT_THAT(message, HasSubstr("truncated: the archive ends at byte 1024 without its "
                                 "end-of-archive block"))
      << message;
}

TEST_F(TarGzTest, DamagedGzipDataIsRefused) {
  std::string archive = tar_gz({tar_file("a.bin", pattern(20000, 7))});
  for (size_t i = archive.size() / 3; i < archive.size() / 3 + 16; ++i) archive[i] ^= 0x5a;
  std::string message = refusal(archive);
  EXPECT_THAT(message, HasSubstr("damaged gzip data (")) << message;
}

TEST_F(TarGzTest, AWrongGzipChecksumIsRefused) {
  std::string archive = tar_gz({tar_file("a.bin", "data")});
  archive[archive.size() - 8] ^= 0x01;  // the CRC-32 of the trailer
  std::string message = refusal(archive);
  EXPECT_THAT(message, HasSubstr("damaged gzip data (incorrect data check)")) << message;
}

TEST_F(TarGzTest, NotGzipIsRefused) {
  std::string message = refusal(tar_bytes({tar_file("a.bin", "data")}));
  EXPECT_THAT(message, HasSubstr("damaged gzip data (incorrect header check)")) << message;
}

TEST_F(TarGzTest, AHeaderWithAWrongChecksumIsRefused) {
  std::string tar = tar_bytes({tar_file("a.bin", "data")});
  tar[0] = 'b';  // the name changes, the checksum does not
  std::string message = refusal(gzip_bytes(tar));
  EXPECT_THAT(message, HasSubstr("damaged tar header: wrong checksum (header at byte 0)"))
      << message;
}

TEST_F(TarGzTest, GzipOfSomethingElseIsNotATarArchive) {
  std::string message = refusal(gzip_bytes(pattern(2048, 8)));
  EXPECT_THAT(message, HasSubstr("not a ustar tar archive")) << message;
}

TEST_F(TarGzTest, AMissingArchiveIsADataErrorNamingIt) {
  try {
    extract_tar_gz(dir_ / "absent.tar.gz", kShownAs,
                   [](const std::string&) { return std::optional<std::filesystem::path>(); });
    ADD_FAILURE() << "read an archive that does not exist";
  } catch (const runner::DataError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr((dir_ / "absent.tar.gz").string())) << e.what();
  }
}

}  // namespace
}  // namespace runner::datasets::testing
