// gpt2's keys and presets, its estimator against the parameter formula and the GPT-2 paper's
// counts, and the ConfigErrors of bad keys and unsuitable datasets.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "gpt2_test_support.hpp"

using ::testing::HasSubstr;

namespace gpt2 {
namespace {

using test_support::model_options;
using test_support::token_data;

const runner::Component& gpt2_component() {
  static const runner::PluginBuilder plugin = [] {
    runner::PluginBuilder p;
    add_gpt2_model(p);
    return p;
  }();
  return plugin.components().at(0);
}

runner::ModelEstimate estimate_of(const runner::Options& options, runner::DatasetInfo data) {
  runner::ModelContext context;
  context.data = std::move(data);
  return gpt2_component().estimate_model(options, context);
}

// The ConfigError `action` throws; a failure when it throws none.
runner::ConfigError config_error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const runner::ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "no ConfigError";
  return runner::ConfigError("");
}

struct PresetSizes {
  std::string name;
  int64_t hidden, heads, layers, seq_len, vocab_size;
};

const std::vector<PresetSizes> kPresets = {
    {"tiny", 64, 4, 2, 64, 512},           {"small", 768, 12, 12, 1024, 50257},
    {"medium", 1024, 16, 24, 1024, 50257}, {"large", 1280, 20, 36, 1024, 50257},
    {"xl", 1600, 32, 48, 1024, 50257},
};

TEST(Gpt2Options, PresetsHaveTheirSizes) {
  for (const PresetSizes& p : kPresets) {
    Gpt2Options options = Gpt2Options::from(model_options({{"preset", p.name}}));
    EXPECT_EQ(options.shape.hidden, p.hidden) << p.name;
    EXPECT_EQ(options.shape.heads, p.heads) << p.name;
    EXPECT_EQ(options.shape.layers, p.layers) << p.name;
    EXPECT_EQ(options.shape.seq_len, p.seq_len) << p.name;
    EXPECT_EQ(options.shape.vocab_size, p.vocab_size) << p.name;
  }
}

TEST(Gpt2Options, SizeKeysOverrideThePresetAndZeroKeepsIt) {
  Gpt2Options options = Gpt2Options::from(model_options(
      {{"preset", std::string("small")}, {"hidden", int64_t{256}}, {"heads", int64_t{8}}}));
  EXPECT_EQ(options.shape.hidden, 256);
  EXPECT_EQ(options.shape.heads, 8);
  EXPECT_EQ(options.shape.layers, 12);
  EXPECT_EQ(options.shape.seq_len, 1024);
  EXPECT_EQ(options.shape.vocab_size, 50257);
  EXPECT_EQ(options.activation, "torch_gelu_tanh");
  EXPECT_EQ(options.dropout, 0.0);
}

TEST(Gpt2Options, EstimatorFollowsTheFormulaForEveryPreset) {
  const int64_t tokens = 64;
  for (const PresetSizes& p : kPresets) {
    runner::ModelEstimate sizes =
        estimate_of(model_options({{"preset", p.name}}), token_data(100, tokens));
    int64_t expected = test_support::gpt2_parameters(p.layers, p.hidden, p.vocab_size, p.seq_len);
    EXPECT_EQ(sizes.parameters, expected) << p.name;
    EXPECT_DOUBLE_EQ(sizes.forward_flops_per_sample, 2.0 * expected * tokens) << p.name;
  }
}

TEST(Gpt2Options, EstimatorGivesTheKnownCountsOfSmallAndXl) {
  EXPECT_EQ(
      estimate_of(model_options({{"preset", std::string("small")}}), token_data(100, 8)).parameters,
      124439808);
  EXPECT_EQ(
      estimate_of(model_options({{"preset", std::string("xl")}}), token_data(100, 8)).parameters,
      1557611200);
}

TEST(Gpt2Options, HiddenThatDoesNotDivideByHeadsIsAConfigErrorNamingBoth) {
  runner::Options options = model_options({{"heads", int64_t{3}}});  // tiny: hidden 64
  runner::ConfigError e = config_error_of([&] { estimate_of(options, token_data(100, 8)); });
  EXPECT_THAT(e.what(), HasSubstr("hidden = 64")) << e.what();
  EXPECT_THAT(e.what(), HasSubstr("heads = 3")) << e.what();
  test_support::FakeOpLibrary ops;
  EXPECT_THROW(gpt2_component().make_model(options, test_support::context(ops, token_data(100, 8))),
               runner::ConfigError);
}

// 1e9 layers of hidden 64: 1e9 * (12 * 64^2 + 13 * 64) + 512 * 64 + 64 * 64 + 2 * 64
// = 4.9984e13 parameters, refused with the count and before any tensor is made; the hidden size
// whose 12 h^2 overflows 64 bits is refused too.
TEST(Gpt2Options, AModelBeyondATrillionParametersIsRefusedWithItsCount) {
  runner::Options deep = model_options({{"layers", int64_t{1000000000}}});
  runner::ConfigError e = config_error_of([&] { estimate_of(deep, token_data(100, 8)); });
  EXPECT_THAT(e.what(), HasSubstr("has 5e+13 parameters, more than the 1e12")) << e.what();
  runner::Options wide = model_options({{"hidden", int64_t{1} << 40}, {"heads", int64_t{1}}});
  e = config_error_of([&] { estimate_of(wide, token_data(100, 8)); });
  EXPECT_THAT(e.what(), HasSubstr("parameters, more than the 1e12")) << e.what();
  test_support::FakeOpLibrary ops;
  EXPECT_THROW(gpt2_component().make_model(deep, test_support::context(ops, token_data(100, 8))),
               runner::ConfigError);
}

TEST(Gpt2Options, VocabularyLargerThanTheModelsIsAConfigErrorNamingBoth) {
  runner::ConfigError e =
      config_error_of([&] { estimate_of(model_options(), token_data(1000, 8)); });
  EXPECT_THAT(e.what(), HasSubstr("1000")) << e.what();
  EXPECT_THAT(e.what(), HasSubstr("vocab_size = 512")) << e.what();
  EXPECT_THAT(e.hint(), HasSubstr("model.vocab_size")) << e.hint();
  EXPECT_NO_THROW(estimate_of(model_options({{"vocab_size", int64_t{1000}}}), token_data(1000, 8)));
}

TEST(Gpt2Options, SequencesLongerThanSeqLenAreAConfigErrorNamingBoth) {
  runner::ConfigError e =
      config_error_of([&] { estimate_of(model_options(), token_data(100, 128)); });
  EXPECT_THAT(e.what(), HasSubstr("128")) << e.what();
  EXPECT_THAT(e.what(), HasSubstr("seq_len = 64")) << e.what();
  EXPECT_THAT(e.hint(), HasSubstr("model.seq_len")) << e.hint();
  EXPECT_NO_THROW(estimate_of(model_options({{"seq_len", int64_t{128}}}), token_data(100, 128)));
}

TEST(Gpt2Options, AClassificationDatasetIsAConfigError) {
  runner::DatasetInfo images;
  images.sample_shape = {1, 28, 28};
  images.num_classes = 10;
  runner::ConfigError e = config_error_of([&] { estimate_of(model_options(), images); });
  EXPECT_THAT(e.what(), HasSubstr("language_modeling")) << e.what();
  EXPECT_THAT(e.what(), HasSubstr("classification")) << e.what();
}

TEST(Gpt2Options, SamplesThatAreNotTokenSequencesAreAConfigError) {
  runner::DatasetInfo grid = token_data(100, 8);
  grid.sample_shape = {8, 8};
  EXPECT_THAT(config_error_of([&] { estimate_of(model_options(), grid); }).what(),
              HasSubstr("8x8"));
  EXPECT_THROW(estimate_of(model_options(), token_data(100, 1)), runner::ConfigError);
}

TEST(Gpt2Options, SchemaDeclaresEveryKeyWithItsDefault) {
  const runner::Schema& schema = gpt2_component().schema;
  EXPECT_EQ(schema.names(),
            (std::vector<std::string>{"preset", "hidden", "heads", "layers", "seq_len",
                                      "vocab_size", "dropout", "activation"}));
  EXPECT_EQ(schema.find("preset")->choices,
            (std::vector<std::string>{"tiny", "small", "medium", "large", "xl"}));
  EXPECT_EQ(std::get<std::string>(*schema.find("preset")->default_value), "tiny");
  EXPECT_EQ(std::get<std::string>(*schema.find("activation")->default_value), "torch_gelu_tanh");
  for (const char* size : {"hidden", "heads", "layers", "seq_len", "vocab_size"}) {
    EXPECT_EQ(std::get<int64_t>(*schema.find(size)->default_value), 0) << size;
    EXPECT_EQ(*schema.find(size)->min, 0.0) << size;
  }
  EXPECT_EQ(*schema.find("dropout")->max, 1.0);
}

}  // namespace
}  // namespace gpt2
