// gpt2's presets, keys and checks against the dataset, and its parameter and FLOP estimate.
#include "gpt2_options.hpp"

#include <array>
#include <cstdio>
#include <runner/errors.hpp>
#include <runner/option_fields.hpp>

namespace gpt2 {
namespace {

struct Preset {
  const char* name;
  Shape shape;  // hidden, heads, layers, seq_len, vocab_size
};

constexpr int64_t kGpt2Vocabulary = 50257;
constexpr int64_t kGpt2Positions = 1024;

// tiny trains in seconds on a CPU; the others are the four sizes of the GPT-2 paper.
constexpr std::array<Preset, 5> kPresets = {{
    {"tiny", {64, 4, 2, 64, 512}},
    {"small", {768, 12, 12, kGpt2Positions, kGpt2Vocabulary}},
    {"medium", {1024, 16, 24, kGpt2Positions, kGpt2Vocabulary}},
    {"large", {1280, 20, 36, kGpt2Positions, kGpt2Vocabulary}},
    {"xl", {1600, 32, 48, kGpt2Positions, kGpt2Vocabulary}},
}};

std::string shape_text(const std::vector<int64_t>& shape) {
  if (shape.empty()) return "no shape";
  std::string text;
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? "x" : "") + std::to_string(shape[i]);
  return text;
}

// parameter_count's formula in floating point: it cannot overflow, however large the sizes.
double parameters_as_double(const Shape& shape) {
  const auto h = static_cast<double>(shape.hidden);
  return static_cast<double>(shape.layers) * (12 * h * h + 13 * h) +
         static_cast<double>(shape.vocab_size) * h + static_cast<double>(shape.seq_len) * h + 2 * h;
}

void check_shape(const Shape& shape) {
  if (shape.hidden % shape.heads != 0)
    throw runner::ConfigError("[model] hidden = " + std::to_string(shape.hidden) +
                                  " does not divide by heads = " + std::to_string(shape.heads),
                              "set model.hidden to a multiple of model.heads");
  const double parameters = parameters_as_double(shape);
  if (parameters > kMaxParameters) {
    char count[32];
    std::snprintf(count, sizeof count, "%.3g", parameters);
    throw runner::ConfigError("[model] gpt2 of hidden " + std::to_string(shape.hidden) +
                                  ", layers " + std::to_string(shape.layers) + ", vocab_size " +
                                  std::to_string(shape.vocab_size) + " and seq_len " +
                                  std::to_string(shape.seq_len) + " has " + count +
                                  " parameters, more than the 1e12 any machine here can hold",
                              "lower model.hidden, model.layers or model.vocab_size");
  }
}

void check_token_sequences(const runner::DatasetInfo& data) {
  const std::string hint = "use a dataset of token sequences";
  if (data.task != runner::Task::language_modeling)
    throw runner::ConfigError(
        std::string("model gpt2 needs a language_modeling dataset; its task is ") +
            runner::task_name(data.task),
        hint);
  if (data.sample_shape.size() != 1)
    throw runner::ConfigError("model gpt2 takes samples of T token ids; the dataset gives " +
                                  shape_text(data.sample_shape),
                              hint);
  if (data.sample_shape[0] < 2)
    throw runner::ConfigError(
        "model gpt2 needs sequences of at least 2 tokens; the dataset gives " +
            std::to_string(data.sample_shape[0]),
        hint + " of 2 tokens or more");
}

void check_fit(const Shape& shape, const runner::DatasetInfo& data) {
  const int64_t vocabulary = data.num_classes;
  if (vocabulary > shape.vocab_size)
    throw runner::ConfigError(
        "the dataset's vocabulary of " + std::to_string(vocabulary) +
            " tokens is larger than the model's vocab_size = " + std::to_string(shape.vocab_size),
        "set model.vocab_size to at least " + std::to_string(vocabulary) +
            ", or choose a preset with a larger vocabulary");
  const int64_t tokens = data.sample_shape[0];
  if (tokens > shape.seq_len)
    throw runner::ConfigError(
        "the dataset's sequences of " + std::to_string(tokens) +
            " tokens are longer than the model's seq_len = " + std::to_string(shape.seq_len),
        "set model.seq_len to at least " + std::to_string(tokens) +
            ", or shorten the dataset's sequences");
}

}  // namespace

Shape preset_shape(const std::string& preset) {
  for (const Preset& p : kPresets)
    if (preset == p.name) return p.shape;
  throw runner::ConfigError("[model] preset = \"" + preset + "\" is not a gpt2 preset",
                            "choose tiny, small, medium, large or xl");
}

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const Preset& p : kPresets) names.emplace_back(p.name);
  return names;
}

namespace {

// A size key: 0 keeps the preset's size, which the key preset has set before.
void add_size_key(runner::OptionFields<Gpt2Options>& fields, const std::string& name,
                  int64_t Shape::*size, const std::string& doc) {
  runner::KeySpec spec{name, runner::KeyType::integer, int64_t{0}, doc, 0.0};
  fields.custom(std::move(spec),
                [size](Gpt2Options& out, const runner::Options& options, const std::string& key) {
                  const int64_t value = options.get_int(key);
                  if (value != 0) out.shape.*size = value;
                });
}

const runner::OptionFields<Gpt2Options>& fields() {
  static const auto fields = [] {
    runner::OptionFields<Gpt2Options> f;
    f.custom({"preset", runner::KeyType::string, std::string("tiny"),
              "the sizes to start from; the size keys below override them", std::nullopt,
              std::nullopt, preset_names()},
             [](Gpt2Options& out, const runner::Options& options, const std::string& key) {
               out.shape = preset_shape(options.get_string(key));
             });
    add_size_key(f, "hidden", &Shape::hidden, "width of the residual stream; 0: the preset's");
    add_size_key(f, "heads", &Shape::heads, "attention heads, dividing hidden; 0: the preset's");
    add_size_key(f, "layers", &Shape::layers, "transformer blocks; 0: the preset's");
    add_size_key(f, "seq_len", &Shape::seq_len,
                 "positions, the longest sequence taken; 0: the preset's");
    add_size_key(f, "vocab_size", &Shape::vocab_size,
                 "tokens, at least the dataset's vocabulary; 0: the preset's");
    f.number("dropout", &Gpt2Options::dropout,
             "dropout after the embeddings, on attention weights and residuals", 0.0, 1.0);
    f.text("activation", &Gpt2Options::activation, "name of the op applied inside each MLP");
    return f;
  }();
  return fields;
}

}  // namespace

Gpt2Options Gpt2Options::from(const runner::Options& options) { return fields().read(options); }

runner::Schema gpt2_schema() { return fields().schema(); }

void check_options(const Gpt2Options& options, const runner::DatasetInfo& data) {
  check_shape(options.shape);
  check_token_sequences(data);
  check_fit(options.shape, data);
}

int64_t parameter_count(const Shape& shape) {
  const int64_t h = shape.hidden;
  const int64_t per_block = 12 * h * h + 13 * h;
  return shape.layers * per_block + shape.vocab_size * h + shape.seq_len * h + 2 * h;
}

double forward_flops_per_sample(int64_t parameters, int64_t tokens_per_sample) {
  return 2.0 * static_cast<double>(parameters) * static_cast<double>(tokens_per_sample);
}

double block_forward_flops(const Shape& shape, int64_t tokens) {
  const auto h = static_cast<double>(shape.hidden), t = static_cast<double>(tokens);
  return 24 * t * h * h + 4 * t * t * h;
}

double head_forward_flops(const Shape& shape, int64_t tokens) {
  return 2 * static_cast<double>(tokens) * static_cast<double>(shape.hidden) *
         static_cast<double>(shape.vocab_size);
}

runner::ModelEstimate estimate(const Gpt2Options& options, const runner::DatasetInfo& data) {
  check_options(options, data);
  runner::ModelEstimate sizes;
  sizes.parameters = parameter_count(options.shape);
  sizes.forward_flops_per_sample = forward_flops_per_sample(sizes.parameters, data.sample_shape[0]);
  return sizes;
}

}  // namespace gpt2
