// Every key of every table is checked against its schema; each failure names the place, the
// key and what would be right.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/host_schemas.hpp"
#include "test_support.hpp"

using ::testing::HasSubstr;
using ::testing::Not;

namespace runner::config {
namespace {

using test::Contains;
using test::kMinimal;
using test::parse;
using test::parse_error;

TEST(ConfigValidate, AnUnknownKeyNamesItsPlaceAndTheClosestKnownKey) {
  ConfigError e = parse_error(kMinimal + "activaton = \"tanh\"\n");
  EXPECT_TRUE(
      Contains(e.what(), "exp.toml:6:1: unknown key model.activaton; did you mean 'activation'?"));
  EXPECT_EQ(e.hint(), "known keys: name, activation");
  EXPECT_THAT(std::string(e.what()), Not(HasSubstr("\n")));
}

TEST(ConfigValidate, AnUnknownKeyWithNothingCloseListsTheKnownKeys) {
  ConfigError e = parse_error(kMinimal + "[train]\nepochs = 2\n  speed = 3\n");
  EXPECT_TRUE(Contains(e.what(), "exp.toml:8:3: unknown key train.speed"));
  EXPECT_FALSE(Contains(e.what(), "did you mean"));
  EXPECT_TRUE(Contains(e.hint(), "known keys: epochs, batch_size, test_batch_size, device"));
}

TEST(ConfigValidate, UnknownKeysAreFoundInEverySection) {
  EXPECT_TRUE(Contains(parse_error(kMinimal + "[optimizer]\nmomentun = 0.9\n").what(),
                       "unknown key optimizer.momentun; did you mean 'momentum'?"));
  EXPECT_TRUE(Contains(parse_error(kMinimal + "[schedule]\ngama = 0.5\n").what(),
                       "unknown key schedule.gama; did you mean 'gamma'?"));
  EXPECT_TRUE(Contains(parse_error(kMinimal + "[experiment]\nsed = 1\n").what(),
                       "unknown key experiment.sed; did you mean 'seed'?"));
  EXPECT_TRUE(Contains(parse_error(kMinimal + "[ops.gelu]\napproximat = \"tanh\"\n").what(),
                       "unknown key ops.gelu.approximat; did you mean 'approximate'?"));
  EXPECT_TRUE(Contains(parse_error(kMinimal + "[strategy]\nbackend = \"gloo\"\n").what(),
                       "unknown key strategy.backend"));
  EXPECT_TRUE(Contains(parse_error(kMinimal + "[model.encoder]\nwidth = 3\n").what(),
                       "exp.toml:6:8: unknown key model.encoder"));
}

TEST(ConfigValidate, AWrongTypeNamesTheExpectedTypeAndWhatWasGiven) {
  ConfigError e = parse_error(kMinimal + "[train]\nbatch_size = \"64\"\n");
  EXPECT_TRUE(
      Contains(e.what(), "exp.toml:7:1: train.batch_size must be an integer, not string \"64\""));
  EXPECT_TRUE(Contains(e.hint(), "train.batch_size (integer, at least 1, default 64): "));
  EXPECT_TRUE(Contains(parse_error(kMinimal + "[train]\ndeterministic = 1\n").what(),
                       "train.deterministic must be a bool, not integer 1"));
  EXPECT_TRUE(Contains(parse_error(kMinimal + "[optimizer]\nlr = \"fast\"\n").what(),
                       "optimizer.lr must be a float, not string \"fast\""));
  EXPECT_TRUE(Contains(parse_error(kMinimal + "[train]\ndevice = [\"cpu\"]\n").what(),
                       "train.device must be a string, not array [ 'cpu' ]"));
  EXPECT_TRUE(Contains(parse_error(kMinimal + "[train]\ndevice = { kind = \"cpu\" }\n").what(),
                       "train.device must be a string, not a table"));
}

TEST(ConfigValidate, ADateIsNoOtherType) {
  EXPECT_TRUE(Contains(parse_error(kMinimal + "[train]\nepochs = 1979-05-27\n").what(),
                       "train.epochs must be an integer, not date/time 1979-05-27"));
}

TEST(ConfigValidate, AFloatIsNotAnInteger) {
  ConfigError e = parse_error(kMinimal + "[train]\nepochs = 2.0\n");
  EXPECT_TRUE(Contains(e.what(), "train.epochs must be an integer, not float 2.0"));
}

TEST(ConfigValidate, ListElementsMustHaveTheListsType) {
  EXPECT_TRUE(Contains(parse_error(kMinimal + "[optimizer]\nbetas = [0.9, \"x\"]\n").what(),
                       "optimizer.betas must be a list of floats, not array"));
  EXPECT_TRUE(Contains(parse_error(kMinimal + "[optimizer]\nbetas = 0.9\n").what(),
                       "optimizer.betas must be a list of floats, not float 0.9"));
  EXPECT_TRUE(Contains(parse_error(kMinimal + "hidden = [64, 0.5]\n", {"model.name=mlp"}).what(),
                       "model.hidden must be a list of integers, not array [ 64, 0.5 ]"));
  EXPECT_TRUE(Contains(parse_error(kMinimal + "[experiment]\nplugin_path = [1]\n").what(),
                       "experiment.plugin_path must be a list of strings"));
}

TEST(ConfigValidate, AnEmptyListIsAList) {
  const RunConfig run = parse(kMinimal + "[experiment]\nplugin_path = []\n").runs[0];
  EXPECT_TRUE(run.experiment.get_strings("plugin_path").empty());
}

TEST(ConfigValidate, OutOfRangeNamesTheValueAndTheAllowedRange) {
  ConfigError e = parse_error(kMinimal + "[train]\nbatch_size = 0\n");
  EXPECT_TRUE(Contains(
      e.what(), "exp.toml:7:1: train.batch_size = 0 is out of range: it must be at least 1"));
  EXPECT_TRUE(Contains(parse_error(kMinimal + "[optimizer]\nmomentum = 1.5\n").what(),
                       "optimizer.momentum = 1.5 is out of range: it must be between 0 and 1"));
  EXPECT_TRUE(Contains(parse_error(kMinimal + "[optimizer]\nlr = -0.1\n").what(),
                       "optimizer.lr = -0.1 is out of range: it must be at least 0"));
  EXPECT_TRUE(Contains(parse_error(kMinimal + "[optimizer]\nlr = nan\n").what(),
                       "optimizer.lr = nan is out of range"));
}

// Without a ceiling, train.threads = 100000 started tens of thousands of threads and hung.
TEST(ConfigValidate, TrainThreadsHasACeiling) {
  const KeySpec& threads = *train_schema().find("threads");
  ASSERT_TRUE(threads.max.has_value());
  const int64_t ceiling = static_cast<int64_t>(*threads.max);
  EXPECT_EQ(
      parse(kMinimal, {"train.threads=" + std::to_string(ceiling)}).runs.front().train.threads,
      ceiling);
  const std::string above = std::to_string(ceiling + 1);
  ConfigError e = parse_error(kMinimal, {"train.threads=" + above});
  EXPECT_TRUE(Contains(e.what(), "train.threads = " + above +
                                     " is out of range: it must be between 0 and " +
                                     std::to_string(ceiling)));
}

// A key without a maximum took inf, and training then failed on a NaN loss.
TEST(ConfigValidate, AnInfinityIsRefusedWhereverItFallsInTheRange) {
  EXPECT_TRUE(Contains(parse_error(kMinimal + "[optimizer]\nlr = inf\n").what(),
                       "exp.toml:7:1: optimizer.lr = inf is not a finite number"));
  EXPECT_TRUE(Contains(parse_error(kMinimal + "[optimizer]\nbetas = [0.9, -inf]\n").what(),
                       "optimizer.betas[1] = -inf is not a finite number"));
  EXPECT_TRUE(Contains(parse_error(kMinimal, {"optimizer.lr=+inf"}).what(),
                       "optimizer.lr = inf is not a finite number"));
}

TEST(ConfigValidate, EachListElementIsInRange) {
  EXPECT_TRUE(Contains(parse_error(kMinimal + "[optimizer]\nbetas = [0.9, 1.5]\n").what(),
                       "optimizer.betas[1] = 1.5 is out of range: it must be between 0 and 1"));
  EXPECT_TRUE(Contains(parse_error(kMinimal + "hidden = [64, 0]\n", {"model.name=mlp"}).what(),
                       "model.hidden[1] = 0 is out of range: it must be at least 1"));
}

TEST(ConfigValidate, AStringOutsideItsChoicesListsThem) {
  ConfigError e = parse_error(kMinimal + "[train]\ndevice = \"cdua\"\n");
  EXPECT_TRUE(Contains(
      e.what(),
      "exp.toml:7:1: train.device = \"cdua\" is not one of cpu, cuda, auto; did you mean 'cuda'?"));
  EXPECT_EQ(e.hint(), "choices: cpu, cuda, auto");
  EXPECT_FALSE(
      Contains(parse_error(kMinimal + "[optimizer]\nname = \"lbfgs\"\n").what(), "did you mean"));
}

TEST(ConfigValidate, EachStringOfAListIsOneOfItsChoices) {
  const RunConfig run =
      parse(kMinimal + "norms = [\"batch\", \"none\"]\n", {"model.name=mlp"}).runs[0];
  EXPECT_EQ(run.model.options.get_strings("norms"), (std::vector<std::string>{"batch", "none"}));
  ConfigError e = parse_error(kMinimal + "norms = [\"batch\", \"lyer\"]\n", {"model.name=mlp"});
  EXPECT_TRUE(Contains(e.what(),
                       "model.norms[1] = \"lyer\" is not one of none, batch, layer; "
                       "did you mean 'layer'?"));
  EXPECT_EQ(e.hint(), "choices: none, batch, layer");
}

TEST(ConfigValidate, AMissingRequiredKeyIsReportedAtTheSectionHeader) {
  ConfigError e = parse_error(
      "[train]\nepochs = 2\n\n[dataset]\nname = \"mnist\"\n[model]\nname = \"lenet5\"\n");
  EXPECT_TRUE(Contains(e.what(), "exp.toml:4:1: missing required key dataset.data_dir"));
  EXPECT_TRUE(Contains(e.hint(),
                       "add it to [dataset]: dataset.data_dir (string, required): "
                       "Folder with the MNIST files"));
}

}  // namespace
}  // namespace runner::config
