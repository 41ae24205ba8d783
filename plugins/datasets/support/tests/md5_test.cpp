// MD5 sums against the test suite of RFC 1321 (appendix A.5), of a file read in many chunks,
// and the check of an MD5 written in a config.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <runner/errors.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <runner/datasets/md5.hpp>

using ::testing::HasSubstr;

namespace runner::datasets::testing {
namespace {

TEST(Md5, MatchesTheRfc1321TestSuite) {
  EXPECT_EQ(md5_hex(""), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(md5_hex("a"), "0cc175b9c0f1b6a831c399e269772661");
  EXPECT_EQ(md5_hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(md5_hex("message digest"), "f96b697d7cb7938d525a2f31aaf161d0");
  EXPECT_EQ(md5_hex("abcdefghijklmnopqrstuvwxyz"), "c3fcd3d76192e4007dfb496cca67e13b");
  EXPECT_EQ(md5_hex("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"),
            "d174ab98d277d9f5a5611c2c9f419d9f");
  std::string eighty_digits;
  for (int i = 0; i < 8; ++i) eighty_digits += "1234567890";
  EXPECT_EQ(md5_hex(eighty_digits), "57edf4a22be3c955ac49da2e2107b67a");
}

TEST(Md5, OfAFileReadInChunks) {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("runner_dataset_md5_" + std::to_string(::getpid()));
  std::ofstream(path, std::ios::binary) << std::string(1000000, 'a');
  // A million 'a': the value of coreutils' `python3 -c "print('a'*1000000, end='')" | md5sum`.
  EXPECT_EQ(md5_hex_of_file(path), "7707d6ae4e027c70eea2a935c2296f21");
  std::filesystem::remove(path);
}

TEST(Md5, OfAMissingFileIsADataErrorNamingIt) {
  std::filesystem::path path = "/nonexistent/runner_dataset_md5_missing";
  try {
    md5_hex_of_file(path);
    ADD_FAILURE() << "hashed a file that does not exist";
  } catch (const runner::DataError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr(path.string())) << e.what();
  }
}

TEST(Md5, HexCheckWantsThirtyTwoHexDigits) {
  EXPECT_TRUE(is_md5_hex("d41d8cd98f00b204e9800998ecf8427e"));
  EXPECT_TRUE(is_md5_hex("D41D8CD98F00B204E9800998ECF8427E"));
  EXPECT_FALSE(is_md5_hex("d41d8cd98f00b204e9800998ecf8427"));    // 31
  EXPECT_FALSE(is_md5_hex("d41d8cd98f00b204e9800998ecf8427e0"));  // 33
  EXPECT_FALSE(is_md5_hex("g41d8cd98f00b204e9800998ecf8427e"));
  EXPECT_FALSE(is_md5_hex(""));
}

TEST(Md5, FromTextIsInLowerCaseAndOnlyForThirtyTwoHexDigits) {
  EXPECT_EQ(md5_from_text("D41D8CD98F00B204E9800998ecf8427e"), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(md5_from_text("d41d8cd98f00b204e9800998ecf8427"), std::nullopt);
  EXPECT_EQ(md5_from_text("z41d8cd98f00b204e9800998ecf8427e"), std::nullopt);
}

}  // namespace
}  // namespace runner::datasets::testing
