// Tests of the suggestions for unknown words: edits allowed by length, the closest word preferred.
#include "config/did_you_mean.hpp"

#include <gtest/gtest.h>

namespace runner::config {
namespace {

const std::vector<std::string> kKeys = {"activation", "batch_size", "epochs", "lr"};

TEST(DidYouMean, SuggestsTheKnownWordOneEditAway) {
  EXPECT_EQ(did_you_mean("activaton", kKeys), "activation");   // a deletion
  EXPECT_EQ(did_you_mean("epochss", kKeys), "epochs");         // an insertion
  EXPECT_EQ(did_you_mean("batch-size", kKeys), "batch_size");  // a substitution
  EXPECT_EQ(did_you_mean("epcohs", kKeys), "epochs");          // a swap of neighbours
}

TEST(DidYouMean, AllowsAThirdOfTheWordInEdits) {
  EXPECT_EQ(did_you_mean("actvaton", kKeys), "activation");  // 8 letters: 2 edits allowed
  EXPECT_EQ(did_you_mean("actvtn", kKeys), "");              // 6 letters: 4 edits are too many
}

TEST(DidYouMean, AllowsOneEditInShortWords) {
  EXPECT_EQ(did_you_mean("l", kKeys), "lr");
  EXPECT_EQ(did_you_mean("xy", kKeys), "");
}

TEST(DidYouMean, PrefersTheClosestWord) {
  EXPECT_EQ(did_you_mean("tanh", {"tan", "tanh2", "tanh"}), "tanh");
  EXPECT_EQ(did_you_mean("nccl", {"gloo", "ncl"}), "ncl");
}

TEST(DidYouMean, SuggestsNothingFromNothing) {
  EXPECT_EQ(did_you_mean("anything", {}), "");
  EXPECT_EQ(did_you_mean("", kKeys), "");  // "lr" is two edits away, one is allowed
}

}  // namespace
}  // namespace runner::config
