// Dataset "random_tokens": benchmark data for language models. Sequences of token ids drawn
// uniformly below the vocabulary size, each a pure function of (run seed, split, index) and
// generated when a batch asks for it, so a split of any size costs no memory.
#pragma once

#include <runner/dataset.hpp>
#include <runner/options.hpp>
#include <runner/plugin.hpp>

#include <cstdint>

namespace random_tokens {

struct RandomTokensOptions {
  int64_t size = 10000;     // training sequences
  int64_t test_size = 100;  // test sequences
  int64_t seq_len = 1024;   // tokens per sequence
  int64_t vocab_size = 50257;

  static RandomTokensOptions from(const runner::Options& options);
};

runner::Schema random_tokens_schema();

class RandomTokensDataset : public runner::Dataset {
 public:
  RandomTokensDataset(const RandomTokensOptions& options, int64_t seed);

  runner::DatasetInfo info() const override;
  int64_t size(runner::Split split) const override;
  // inputs (N, seq_len) int64; targets a copy of them (the model shifts them).
  runner::Batch get_batch(runner::Split split, const torch::Tensor& indices) const override;

 private:
  RandomTokensOptions options_;
  uint64_t seed_;
};

// Registers the dataset "random_tokens".
void add_random_tokens_dataset(runner::PluginBuilder& plugin);

}  // namespace random_tokens
