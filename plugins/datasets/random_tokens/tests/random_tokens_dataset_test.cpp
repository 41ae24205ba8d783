// The random_tokens dataset: token range, determinism per index whatever the batch or thread,
// different seeds and splits, a split of 10^12 sequences, uniform frequencies, its keys.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <runner/errors.hpp>
#include <runner/plugin.hpp>
#include <runner_testing/error_message.hpp>

#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "random_tokens_dataset.hpp"

using ::testing::HasSubstr;

namespace random_tokens {
namespace {

using runner::Split;

RandomTokensOptions small_options(int64_t vocab_size = 100, int64_t seq_len = 16) {
  RandomTokensOptions o;
  o.size = 50;
  o.test_size = 20;
  o.seq_len = seq_len;
  o.vocab_size = vocab_size;
  return o;
}

torch::Tensor tokens(const runner::Dataset& data, Split split,
                     const std::vector<int64_t>& indices) {
  return data.get_batch(split, torch::tensor(indices, torch::kInt64)).inputs;
}

// One declaration gives the table: the keys in order, RandomTokensOptions{}'s values as their
// defaults, the ranges; and each key is read back into its member.
TEST(RandomTokens, KeysDefaultToTheOptionsStructAndAreReadIntoIt) {
  const runner::Schema schema = random_tokens_schema();
  EXPECT_EQ(schema.names(),
            (std::vector<std::string>{"size", "test_size", "seq_len", "vocab_size"}));
  const RandomTokensOptions defaults;
  EXPECT_EQ(std::get<int64_t>(*schema.find("seq_len")->default_value), defaults.seq_len);
  EXPECT_EQ(std::get<int64_t>(*schema.find("vocab_size")->default_value), defaults.vocab_size);
  EXPECT_EQ(schema.find("size")->min, 1.0);
  EXPECT_EQ(schema.find("seq_len")->min, 2.0);
  runner::Options options("dataset");
  options.set("size", int64_t{7});
  options.set("test_size", int64_t{3});
  options.set("seq_len", int64_t{5});
  options.set("vocab_size", int64_t{11});
  const RandomTokensOptions read = RandomTokensOptions::from(options);
  EXPECT_EQ(read.size, 7);
  EXPECT_EQ(read.test_size, 3);
  EXPECT_EQ(read.seq_len, 5);
  EXPECT_EQ(read.vocab_size, 11);
}

TEST(RandomTokens, InfoDescribesTokenSequences) {
  RandomTokensDataset data(small_options(321, 8), 1);
  runner::DatasetInfo info = data.info();
  EXPECT_EQ(info.task, runner::Task::language_modeling);
  EXPECT_EQ(info.num_classes, 321);
  EXPECT_EQ(info.sample_shape, (std::vector<int64_t>{8}));
  EXPECT_TRUE(info.class_names.empty());
  EXPECT_EQ(data.size(Split::train), 50);
  EXPECT_EQ(data.size(Split::test), 20);
}

TEST(RandomTokens, BatchesAreTokenIdsBelowTheVocabularySize) {
  RandomTokensDataset data(small_options(7, 32), 1);
  runner::Batch batch = data.get_batch(Split::train, torch::arange(50));
  EXPECT_EQ(batch.inputs.sizes(), torch::IntArrayRef({50, 32}));
  EXPECT_EQ(batch.inputs.dtype(), torch::kInt64);
  EXPECT_EQ(batch.targets.dtype(), torch::kInt64);
  EXPECT_TRUE(torch::equal(batch.targets, batch.inputs));
  EXPECT_EQ(batch.inputs.min().item<int64_t>(), 0);
  EXPECT_EQ(batch.inputs.max().item<int64_t>(), 6);
  // 1600 draws of 7 values: each appears (missing one has probability 7 * (6/7)^1600).
  EXPECT_EQ(std::get<0>(torch::_unique(batch.inputs)).numel(), 7);
}

TEST(RandomTokens, TargetsDoNotShareTheInputsMemory) {
  RandomTokensDataset data(small_options(), 1);
  runner::Batch batch = data.get_batch(Split::train, torch::arange(2));
  torch::Tensor targets = batch.targets.clone();
  batch.inputs.fill_(-1);
  EXPECT_TRUE(torch::equal(batch.targets, targets));
}

TEST(RandomTokens, AnIndexGivesTheSameTokensInAnyBatch) {
  RandomTokensDataset data(small_options(), 3);
  torch::Tensor ordered = tokens(data, Split::train, {0, 1, 2, 3, 4, 5, 6, 7});
  torch::Tensor mixed = tokens(data, Split::train, {5, 2, 5, 0});
  EXPECT_TRUE(torch::equal(mixed[0], ordered[5]));
  EXPECT_TRUE(torch::equal(mixed[1], ordered[2]));
  EXPECT_TRUE(torch::equal(mixed[2], ordered[5]));
  EXPECT_TRUE(torch::equal(mixed[3], ordered[0]));
  RandomTokensDataset again(small_options(), 3);
  EXPECT_TRUE(torch::equal(tokens(again, Split::train, {0, 1, 2, 3, 4, 5, 6, 7}), ordered));
}

TEST(RandomTokens, ThreadsGetTheSameTokensAsOneThread) {
  RandomTokensDataset data(small_options(), 3);
  torch::Tensor expected = data.get_batch(Split::test, torch::arange(20)).inputs;
  std::vector<torch::Tensor> got(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < got.size(); ++t)
    threads.emplace_back(
        [&, t] { got[t] = data.get_batch(Split::test, torch::arange(20)).inputs; });
  for (std::thread& thread : threads) thread.join();
  for (const torch::Tensor& tensor : got) EXPECT_TRUE(torch::equal(tensor, expected));
}

TEST(RandomTokens, SeedsSplitsAndIndicesGiveDifferentSequences) {
  RandomTokensDataset seed1(small_options(), 1);
  RandomTokensDataset seed2(small_options(), 2);
  torch::Tensor train = tokens(seed1, Split::train, {0, 1});
  EXPECT_FALSE(torch::equal(train[0], train[1]));
  EXPECT_FALSE(torch::equal(train, tokens(seed2, Split::train, {0, 1})));
  EXPECT_FALSE(torch::equal(train, tokens(seed1, Split::test, {0, 1})));
}

TEST(RandomTokens, ATrillionSequencesCostNothing) {
  RandomTokensOptions o = small_options(50257, 1024);
  o.size = 1'000'000'000'000;
  RandomTokensDataset data(o, 9);
  ASSERT_EQ(data.size(Split::train), 1'000'000'000'000);
  torch::Tensor batch = tokens(data, Split::train, {o.size - 1, o.size - 2, o.size / 2});
  EXPECT_EQ(batch.sizes(), torch::IntArrayRef({3, 1024}));
  EXPECT_GE(batch.min().item<int64_t>(), 0);
  EXPECT_LT(batch.max().item<int64_t>(), 50257);
  EXPECT_TRUE(torch::equal(tokens(data, Split::train, {o.size - 2})[0], batch[1]));
}

TEST(RandomTokens, TokenFrequenciesAreUniform) {
  const int64_t vocab = 50;
  RandomTokensDataset data(small_options(vocab, 256), 5);
  torch::Tensor draws = data.get_batch(Split::train, torch::arange(50)).inputs.flatten();
  torch::Tensor counts = torch::bincount(draws, {}, vocab).to(torch::kFloat64);  // (vocab)
  double expected = static_cast<double>(draws.numel()) / vocab;                  // 256 per id
  double chi_square = ((counts - expected).square() / expected).sum().item<double>();
  // Pearson's statistic has vocab - 1 degrees of freedom: mean k, variance 2k. Six standard
  // deviations above the mean is a bound that uniform draws break with negligible probability.
  const double k = vocab - 1;
  EXPECT_LT(chi_square, k + 6 * std::sqrt(2 * k)) << counts;
}

TEST(RandomTokens, AnIndexOutsideTheSplitIsRefused) {
  RandomTokensDataset data(small_options(), 1);
  const std::string past_the_end =
      runner::testing::message_of<runner::RunError>([&] { tokens(data, Split::test, {20}); });
  EXPECT_THAT(past_the_end, HasSubstr("index 20 of a test split of 20")) << past_the_end;
  const std::string negative =
      runner::testing::message_of<runner::RunError>([&] { tokens(data, Split::train, {-1}); });
  EXPECT_THAT(negative, HasSubstr("index -1 of a train split of 50")) << negative;
}

TEST(RandomTokens, RegistersItsKeysWithTheirDefaultsAndRanges) {
  runner::PluginBuilder plugin;
  add_random_tokens_dataset(plugin);
  ASSERT_EQ(plugin.components().size(), 1u);
  const runner::Component& component = plugin.components()[0];
  EXPECT_EQ(component.kind, runner::Kind::dataset);
  EXPECT_EQ(component.name, "random_tokens");
  const runner::Schema& schema = component.schema;
  EXPECT_EQ(schema.names(),
            (std::vector<std::string>{"size", "test_size", "seq_len", "vocab_size"}));
  struct ExpectedKey {
    const char* name;
    int64_t default_value;
    double min;
  };
  for (const ExpectedKey& expected :
       {ExpectedKey{"size", 10000, 1}, ExpectedKey{"test_size", 100, 1},
        ExpectedKey{"seq_len", 1024, 2}, ExpectedKey{"vocab_size", 50257, 2}}) {
    const std::string name = expected.name;
    const runner::KeySpec* key = schema.find(name);
    ASSERT_NE(key, nullptr) << name;
    EXPECT_EQ(key->type, runner::KeyType::integer) << name;
    EXPECT_EQ(std::get<int64_t>(*key->default_value), expected.default_value) << name;
    EXPECT_EQ(key->min, expected.min) << name;
    EXPECT_FALSE(key->max.has_value()) << name;
  }
}

TEST(RandomTokens, FactoryUsesTheRunSeed) {
  runner::PluginBuilder plugin;
  add_random_tokens_dataset(plugin);
  const runner::Component& component = plugin.components()[0];
  runner::Options options("dataset");
  for (const runner::KeySpec& key : component.schema.keys())
    options.set(key.name, *key.default_value);
  options.set("seq_len", int64_t{8});
  std::shared_ptr<runner::Dataset> made = component.make_dataset(options, {7});
  RandomTokensDataset direct(RandomTokensOptions::from(options), 7);
  EXPECT_EQ(made->size(Split::train), 10000);
  EXPECT_EQ(made->size(Split::test), 100);
  EXPECT_TRUE(
      torch::equal(tokens(*made, Split::train, {9999}), tokens(direct, Split::train, {9999})));
  RandomTokensDataset other_seed(RandomTokensOptions::from(options), 8);
  EXPECT_FALSE(
      torch::equal(tokens(*made, Split::train, {9999}), tokens(other_seed, Split::train, {9999})));
}

}  // namespace
}  // namespace random_tokens
