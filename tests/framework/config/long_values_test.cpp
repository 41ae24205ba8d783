// A message quotes at most a few hundred characters of what it was given, and still names the
// key: a 5 MB value once came back whole in the error line.
#include <gtest/gtest.h>

#include "common/clipped_text.hpp"
#include "test_support.hpp"

namespace runner::config {
namespace {

using test::Contains;
using test::kMinimal;
using test::parse_error;

const std::string kLong(size_t{1} << 20, 'x');
// How a clipped quote of kLong ends.
const std::string kClipMark = "... (" + std::to_string(kLong.size()) + " characters)";

// A message quotes a value at most twice (its place, its text), each clipped, plus its words.
::testing::AssertionResult IsShort(const ConfigError& e) {
  const size_t longest = 4 * (kQuotedCharacters + kClipMark.size());
  const std::string text = e.what();
  if (text.size() <= longest && text.find('\n') == std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << text.size() << " characters, over " << longest;
}

TEST(ClippedText, KeepsShortTextAndClipsLongTextAtACharacter) {
  EXPECT_EQ(clipped("relu"), "relu");
  const std::string at_limit(kQuotedCharacters, 'a');
  EXPECT_EQ(clipped(at_limit), at_limit);
  EXPECT_EQ(clipped(kLong), kLong.substr(0, kQuotedCharacters) + kClipMark);
  // "é" is two bytes of UTF-8: a cut between them would leave half a character.
  std::string accents;
  for (size_t i = 0; i < kQuotedCharacters + 1; ++i) accents += "\xc3\xa9";
  EXPECT_EQ(clipped(accents), accents.substr(0, 2 * kQuotedCharacters) + "... (" +
                                  std::to_string(kQuotedCharacters + 1) + " characters)");
}

TEST(LongValues, AValueOutsideTheChoicesIsClipped) {
  ConfigError from_file = parse_error(kMinimal + "[train]\ndevice = \"" + kLong + "\"\n");
  EXPECT_TRUE(IsShort(from_file));
  EXPECT_TRUE(Contains(from_file.what(), "exp.toml:7:1: train.device = \"xxx"));
  EXPECT_TRUE(Contains(from_file.what(), kClipMark + " is not one of cpu, cuda, auto"));

  ConfigError from_set = parse_error(kMinimal, {"train.device=" + kLong});
  EXPECT_TRUE(IsShort(from_set));
  EXPECT_TRUE(Contains(from_set.what(), "--set train.device=xxx"));
  EXPECT_TRUE(Contains(from_set.what(), kClipMark + " is not one of cpu, cuda, auto"));
}

TEST(LongValues, AValueOfTheWrongTypeIsClipped) {
  ConfigError e = parse_error(kMinimal + "[train]\nepochs = \"" + kLong + "\"\n");
  EXPECT_TRUE(IsShort(e));
  EXPECT_TRUE(Contains(e.what(), "train.epochs must be an integer, not string \"xxx"));
  EXPECT_TRUE(Contains(e.what(), kClipMark));
}

TEST(LongValues, AnUnknownKeyIsClipped) {
  ConfigError e = parse_error(kMinimal + "[train]\n" + kLong + " = 1\n");
  EXPECT_TRUE(IsShort(e));
  EXPECT_TRUE(Contains(e.what(), "exp.toml:7:1: unknown key train.xxx"));
  EXPECT_TRUE(Contains(e.what(), kClipMark));
}

TEST(LongValues, AnUnknownComponentIsClipped) {
  ConfigError op = parse_error(kMinimal + "[ops." + kLong + "]\napproximate = \"tanh\"\n");
  EXPECT_TRUE(IsShort(op));
  EXPECT_TRUE(Contains(op.what(), "unknown op 'xxx"));
  EXPECT_TRUE(Contains(op.what(), kClipMark + "'"));

  ConfigError model = parse_error(kMinimal, {"model.name=" + kLong});
  EXPECT_TRUE(IsShort(model));
  EXPECT_TRUE(Contains(model.what(), "unknown model 'xxx"));
}

TEST(LongValues, AnUnknownSectionIsClipped) {
  ConfigError e = parse_error(kLong + " = 1\n" + kMinimal);
  EXPECT_TRUE(IsShort(e));
  EXPECT_TRUE(Contains(e.what(), "exp.toml:1:1: unknown section [xxx"));
}

}  // namespace
}  // namespace runner::config
