// random_tokens' keys and dataset: each batch's sequences hashed from seed, split and index.
#include "random_tokens_dataset.hpp"

#include <runner/errors.hpp>
#include <runner/option_fields.hpp>
#include <string>

#include "token_hash.hpp"

namespace random_tokens {
namespace {

// (T) tokens of the sequence with this key, written to `out`.
void write_sequence(uint64_t key, uint64_t vocab_size, int64_t seq_len, int64_t* out) {
  for (int64_t position = 0; position < seq_len; ++position)
    out[position] = token_at(key, static_cast<uint64_t>(position), vocab_size);
}

const runner::OptionFields<RandomTokensOptions>& fields() {
  static const auto fields = [] {
    runner::OptionFields<RandomTokensOptions> f;
    f.integer("size", &RandomTokensOptions::size,
              "training sequences (generated on demand: any size is free)", 1);
    f.integer("test_size", &RandomTokensOptions::test_size, "test sequences", 1);
    f.integer("seq_len", &RandomTokensOptions::seq_len, "tokens per sequence", 2);
    f.integer("vocab_size", &RandomTokensOptions::vocab_size,
              "token ids are uniform in [0, vocab_size)", 2);
    return f;
  }();
  return fields;
}

}  // namespace

RandomTokensOptions RandomTokensOptions::from(const runner::Options& options) {
  return fields().read(options);
}

runner::Schema random_tokens_schema() { return fields().schema(); }

RandomTokensDataset::RandomTokensDataset(const RandomTokensOptions& options, int64_t seed)
    : options_(options), seed_(static_cast<uint64_t>(seed)) {}

runner::DatasetInfo RandomTokensDataset::info() const {
  runner::DatasetInfo info;
  info.sample_shape = {options_.seq_len};
  info.num_classes = options_.vocab_size;
  info.task = runner::Task::language_modeling;
  return info;
}

int64_t RandomTokensDataset::size(runner::Split split) const {
  return split == runner::Split::train ? options_.size : options_.test_size;
}

runner::Batch RandomTokensDataset::get_batch(runner::Split split,
                                             const torch::Tensor& indices) const {
  const int64_t rows = indices.size(0);
  const int64_t split_size = size(split);
  const auto split_number = static_cast<uint64_t>(split == runner::Split::train ? 0 : 1);
  const auto vocab_size = static_cast<uint64_t>(options_.vocab_size);
  torch::Tensor tokens = torch::empty({rows, options_.seq_len}, torch::kInt64);  // (N, T)
  int64_t* out = tokens.data_ptr<int64_t>();
  auto index = indices.accessor<int64_t, 1>();
  for (int64_t row = 0; row < rows; ++row) {
    RUNNER_CHECK(index[row] >= 0 && index[row] < split_size,
                 "index " + std::to_string(index[row]) + " of a " + runner::split_name(split) +
                     " split of " + std::to_string(split_size));
    uint64_t key = sequence_key(seed_, split_number, static_cast<uint64_t>(index[row]));
    write_sequence(key, vocab_size, options_.seq_len, out + row * options_.seq_len);
  }
  return {tokens, tokens.clone()};
}

void add_random_tokens_dataset(runner::PluginBuilder& plugin) {
  plugin.add_dataset("random_tokens", "1.0.0",
                     "uniform random token sequences generated on demand (language-model "
                     "benchmarks)",
                     random_tokens_schema(),
                     [](const runner::Options& options, const runner::DatasetContext& context) {
                       return std::make_shared<RandomTokensDataset>(
                           RandomTokensOptions::from(options), context.seed);
                     });
}

}  // namespace random_tokens
