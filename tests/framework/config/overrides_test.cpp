// --set section.key=value: typed by the schema, applied before the sweep, errors name the --set.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace runner::config {
namespace {

using test::Contains;
using test::kMinimal;
using test::parse;
using test::parse_error;

RunConfig run_with(const std::vector<std::string>& overrides, const std::string& extra = "") {
  return parse(kMinimal + extra, overrides).runs.at(0);
}

TEST(ConfigOverrides, ValuesAreTypedByTheSchema) {
  const RunConfig run = run_with({"train.batch_size=128", "optimizer.lr=1",
                                  "train.deterministic=true", "optimizer.betas=[0.9, 0.99]"});
  EXPECT_EQ(run.train.batch_size, 128);
  EXPECT_TRUE(std::holds_alternative<double>(run.optimizer.get("lr")));
  EXPECT_EQ(run.optimizer.get_double("lr"), 1.0);
  EXPECT_TRUE(run.train.deterministic);
  EXPECT_EQ(run.optimizer.get_doubles("betas"), (std::vector<double>{0.9, 0.99}));
}

TEST(ConfigOverrides, AStringNeedsNoQuotes) {
  EXPECT_EQ(run_with({"model.activation=tanh"}).model.options.get_string("activation"), "tanh");
  EXPECT_EQ(run_with({"model.activation=\"tanh\""}).model.options.get_string("activation"), "tanh");
  EXPECT_EQ(run_with({"dataset.data_dir=/tmp/my data"}).dataset.options.get_string("data_dir"),
            "/tmp/my data");
}

TEST(ConfigOverrides, ReplaceTheFilesValueOrAddAKeyItLacks) {
  const RunConfig run =
      run_with({"model.activation=tanh", "train.epochs=3"}, "activation = \"relu\"\n");
  EXPECT_EQ(run.model.options.get_string("activation"), "tanh");
  EXPECT_EQ(run.train.epochs, 3);
}

TEST(ConfigOverrides, TheLastOfTheSameKeyWins) {
  EXPECT_EQ(run_with({"train.epochs=3", "train.epochs=5"}).train.epochs, 5);
}

TEST(ConfigOverrides, SpacesAroundKeyAndValueAreIgnored) {
  EXPECT_EQ(run_with({" train.epochs = 4 "}).train.epochs, 4);
}

TEST(ConfigOverrides, AnOpOverrideConfiguresTheOp) {
  const RunConfig run = run_with({"ops.gelu.approximate=tanh"});
  ASSERT_EQ(run.ops.count("gelu"), 1u);
  EXPECT_EQ(run.ops.at("gelu").get_string("approximate"), "tanh");
}

TEST(ConfigOverrides, AComponentNameCanBeOverridden) {
  const RunConfig run = run_with({"model.name=mlp", "strategy.name=ddp"});
  EXPECT_EQ(run.model.name, "mlp");
  EXPECT_EQ(run.model.options.get_ints("hidden"), (std::vector<int64_t>{128}));
  EXPECT_EQ(run.strategy.name, "ddp");
  EXPECT_EQ(run.strategy.options.get_string("backend"), "gloo");
}

TEST(ConfigOverrides, AValueOfTheWrongTypeNamesTheOverride) {
  ConfigError e = parse_error(kMinimal, {"train.batch_size=abc"});
  EXPECT_TRUE(Contains(e.what(),
                       "--set train.batch_size=abc: train.batch_size must be an integer, "
                       "not 'abc', which is not a TOML value"));
  EXPECT_TRUE(
      Contains(parse_error(kMinimal, {"train.batch_size=1.5"}).what(),
               "--set train.batch_size=1.5: train.batch_size must be an integer, not float 1.5"));
}

TEST(ConfigOverrides, ANumberForAStringKeyMustBeQuoted) {
  ConfigError e = parse_error(kMinimal, {"experiment.description=2024"});
  EXPECT_TRUE(Contains(e.what(), "experiment.description must be a string, not integer 2024"));
  EXPECT_TRUE(Contains(e.hint(), "--set 'experiment.description=\"...\"'"));
  EXPECT_EQ(run_with({"experiment.description=\"2024\""}).experiment.get_string("description"),
            "2024");
}

TEST(ConfigOverrides, RangesChoicesAndKeysAreChecked) {
  EXPECT_TRUE(Contains(
      parse_error(kMinimal, {"train.batch_size=0"}).what(),
      "--set train.batch_size=0: train.batch_size = 0 is out of range: it must be at least 1"));
  EXPECT_TRUE(
      Contains(parse_error(kMinimal, {"train.device=gpu"}).what(),
               "--set train.device=gpu: train.device = \"gpu\" is not one of cpu, cuda, auto"));
  ConfigError e = parse_error(kMinimal, {"model.activaton=tanh"});
  EXPECT_TRUE(Contains(
      e.what(),
      "--set model.activaton=tanh: unknown key model.activaton; did you mean 'activation'?"));
  EXPECT_EQ(e.hint(), "known keys: name, activation");
  EXPECT_TRUE(Contains(parse_error(kMinimal, {"model.name=lenet"}).what(),
                       "--set model.name=lenet: unknown model 'lenet'; did you mean 'lenet5'?"));
}

TEST(ConfigOverrides, AMalformedOverrideIsAnError) {
  ConfigError e = parse_error(kMinimal, {"train.batch_size"});
  EXPECT_TRUE(Contains(e.what(), "--set train.batch_size: expected key=value"));
  EXPECT_TRUE(Contains(e.hint(), "--set train.batch_size=128"));
  EXPECT_TRUE(Contains(parse_error(kMinimal, {"batch_size=3"}).what(),
                       "--set batch_size=3: 'batch_size' is not a dotted key section.key"));
  EXPECT_TRUE(Contains(parse_error(kMinimal, {"train..epochs=3"}).what(), "is not a dotted key"));
  EXPECT_TRUE(Contains(parse_error(kMinimal, {"ops.gelu=3"}).what(), "is not a dotted key"));
}

TEST(ConfigOverrides, AnUnknownSectionIsAnError) {
  ConfigError e = parse_error(kMinimal, {"trian.epochs=3"});
  EXPECT_TRUE(
      Contains(e.what(), "--set trian.epochs=3: unknown section [trian]; did you mean 'train'?"));
  EXPECT_TRUE(Contains(e.hint(), "known sections: "));
  EXPECT_TRUE(Contains(parse_error(kMinimal, {"sweep.mode=zip"}).what(),
                       "--set sweep.mode=zip: [sweep] cannot be changed with --set"));
}

TEST(ConfigOverrides, ApplyToEveryRunOfASweep) {
  const Experiment e =
      parse(kMinimal + "[sweep]\n\"optimizer.lr\" = [0.1, 0.01]\n", {"train.epochs=7"});
  ASSERT_EQ(e.runs.size(), 2u);
  for (const auto& run : e.runs) EXPECT_EQ(run.train.epochs, 7);
}

TEST(ConfigOverrides, OverridingASweptKeyIsAnError) {
  ConfigError e =
      parse_error(kMinimal + "[sweep.train]\nbatch_size = [32, 64]\n", {"train.batch_size=128"});
  EXPECT_TRUE(Contains(e.what(),
                       "--set train.batch_size=128: conflicts with [sweep] train.batch_size "
                       "at exp.toml:7:1"));
}

}  // namespace
}  // namespace runner::config
