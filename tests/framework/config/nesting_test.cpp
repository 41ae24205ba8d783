// Nesting is measured before toml++ parses (and would overflow its stack on) a deep document.
#include "config/nesting.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace runner::config {
namespace {

using test::Contains;
using test::kMinimal;
using test::parse_error;

std::string repeated(const std::string& part, int times, const std::string& separator = "") {
  std::string text;
  for (int i = 0; i < times; ++i) text += (i ? separator : "") + part;
  return text;
}

TEST(Nesting, DepthAddsHeaderKeyAndEnclosingValues) {
  EXPECT_EQ(find_too_deep("a = 1\n", 0)->depth, 1);
  EXPECT_EQ(find_too_deep("[a.b]\nc.d = 1\n", 3)->depth, 4);
  EXPECT_EQ(find_too_deep("[[a.b]]\nc = [[1]]\n", 3)->depth, 4);
  EXPECT_EQ(find_too_deep("[a]\nb = {c.d = {e = 1}}\n", 4)->depth, 5);
  EXPECT_FALSE(find_too_deep("[a]\nb = {c.d = {e = 1}}\n", 5));
}

TEST(Nesting, StringsCommentsAndNumbersAddNothing) {
  const std::string text =
      "[\"a.b.c.d\"]  # [x.y.z.w]\n"
      "'k.l.m.n' = \"[[[[{{{{\"\n"
      "x = 1.5e3\n"
      "y = \"\"\"\n[[[[ a.b.c.d.e = 1\n\"\"\"\n"
      "z = '''{{{{'''\n"
      "w = \"quote \\\" [[[[\"\n";
  EXPECT_FALSE(find_too_deep(text, 2)) << find_too_deep(text, 2)->line;
}

TEST(Nesting, TheLineOfTheFirstTooDeepPlaceIsGiven) {
  const std::string text = "[a]\nb = 1\n\nc = [\n  [[1]],\n]\n";
  ASSERT_TRUE(find_too_deep(text, 3));
  EXPECT_EQ(find_too_deep(text, 3)->line, 5);
}

TEST(Nesting, AKeyFiftyThousandLevelsDeepIsRefusedWithFileAndLine) {
  const std::string deep = repeated("a", 50000, ".");
  for (const std::string& text :
       {kMinimal + "[train]\n" + deep + " = 1\n", kMinimal + "\n[" + deep + "]\nx = 1\n",
        kMinimal + "[train]\nx = " + repeated("{a = ", 50000) + "1" + repeated("}", 50000) + "\n",
        kMinimal + "[train]\nx = " + repeated("[", 50000) + repeated("]", 50000) + "\n"}) {
    const ConfigError error = parse_error(text);
    EXPECT_TRUE(Contains(error.what(), "exp.toml:7: tables, keys and values nested"));
    EXPECT_TRUE(Contains(error.what(), "more than 64"));
  }
}

TEST(Nesting, AnOverrideValueTooDeepIsRefusedByItsSet) {
  const std::string value = repeated("[", 50000) + repeated("]", 50000);
  const ConfigError error = parse_error(kMinimal, {"train.x=" + value});
  EXPECT_TRUE(Contains(error.what(), "--set train.x="));
  EXPECT_TRUE(Contains(error.what(), "more than 64"));
}

TEST(Nesting, AnExperimentWithinTheLimitParses) {
  EXPECT_NO_THROW(test::parse(kMinimal + "[train]\nepochs = 2\n"));
}

}  // namespace
}  // namespace runner::config
