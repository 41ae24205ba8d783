// [sweep]: the run list, in a known order, each run validated on its own.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace runner::config {
namespace {

using test::Contains;
using test::kMinimal;
using test::parse;
using test::parse_error;

std::vector<std::string> labels(const Experiment& e) {
  std::vector<std::string> out;
  for (const auto& run : e.runs) out.push_back(run.label);
  return out;
}

TEST(ConfigSweep, TheProductVariesTheFirstKeySlowest) {
  const Experiment e = parse(kMinimal +
                             "[sweep]\n\"train.batch_size\" = [32, 64]\n"
                             "[sweep.optimizer]\nlr = [0.1, 0.01]\n");
  EXPECT_EQ(e.swept_keys, (std::vector<std::string>{"train.batch_size", "optimizer.lr"}));
  EXPECT_EQ(labels(e),
            (std::vector<std::string>{
                "train.batch_size=32 optimizer.lr=0.1", "train.batch_size=32 optimizer.lr=0.01",
                "train.batch_size=64 optimizer.lr=0.1", "train.batch_size=64 optimizer.lr=0.01"}));
  EXPECT_EQ(e.runs[2].train.batch_size, 64);
  EXPECT_EQ(e.runs[2].optimizer.get_double("lr"), 0.1);
  ASSERT_EQ(e.runs[3].sweep_point.size(), 2u);
  EXPECT_EQ(e.runs[3].sweep_point[0].first, "train.batch_size");
  EXPECT_EQ(std::get<int64_t>(e.runs[3].sweep_point[0].second), 64);
  EXPECT_EQ(std::get<double>(e.runs[3].sweep_point[1].second), 0.01);
}

TEST(ConfigSweep, KeysKeepTheFilesOrder) {
  const Experiment e = parse(kMinimal +
                             "[sweep]\n\"train.epochs\" = [1, 2]\n"
                             "optimizer.lr = [0.1]\n\"model.activation\" = [\"tanh\"]\n");
  EXPECT_EQ(e.swept_keys,
            (std::vector<std::string>{"train.epochs", "optimizer.lr", "model.activation"}));
  EXPECT_EQ(e.runs[0].label, "train.epochs=1 optimizer.lr=0.1 model.activation=tanh");
}

TEST(ConfigSweep, ZipPairsTheLists) {
  const Experiment e = parse(kMinimal +
                             "[sweep]\nmode = \"zip\"\n\"train.batch_size\" = [32, 64]\n"
                             "\"optimizer.lr\" = [0.1, 0.2]\n");
  EXPECT_EQ(labels(e), (std::vector<std::string>{"train.batch_size=32 optimizer.lr=0.1",
                                                 "train.batch_size=64 optimizer.lr=0.2"}));
}

TEST(ConfigSweep, ZipNeedsListsOfEqualLength) {
  ConfigError e = parse_error(kMinimal +
                              "[sweep]\nmode = \"zip\"\n\"train.batch_size\" = [32, 64]\n"
                              "\"optimizer.lr\" = [0.1, 0.2, 0.3]\n");
  EXPECT_TRUE(Contains(e.what(),
                       "exp.toml:6:1: [sweep] mode = \"zip\" needs lists of equal length: "
                       "train.batch_size has 2, optimizer.lr has 3"));
}

TEST(ConfigSweep, TheModeIsProductOrZip) {
  ConfigError e = parse_error(kMinimal + "[sweep]\nmode = \"zipp\"\n\"train.epochs\" = [1]\n");
  EXPECT_TRUE(Contains(e.what(),
                       "exp.toml:7:1: sweep.mode = \"zipp\" is not one of product, zip; "
                       "did you mean 'zip'?"));
}

// `values` values from 1 up, as a TOML list.
std::string list_of(int values) {
  std::string list = "[";
  for (int i = 1; i <= values; ++i) list += (i > 1 ? ", " : "") + std::to_string(i);
  return list + "]";
}

std::string sweep_of(int keys, int values, const std::string& settings = "") {
  std::string text = kMinimal + "[sweep]\n" + settings;
  for (int k = 0; k < keys; ++k)
    text += "\"train.k" + std::to_string(k) + "\" = " + list_of(values) + "\n";
  return text;
}

TEST(ConfigSweep, ASweepIsCountedBeforeItIsExpanded) {
  ConfigError e = parse_error(sweep_of(5, 100));
  EXPECT_TRUE(Contains(e.what(),
                       "exp.toml:6:1: [sweep] expands to 10000000000 runs "
                       "(100 x 100 x 100 x 100 x 100), more than max_points = 10000"));
  EXPECT_TRUE(Contains(e.hint(), "max_points = 10000000000"));
}

TEST(ConfigSweep, ACountPast64BitsIsRefusedWithoutOverflow) {
  ConfigError e = parse_error(sweep_of(12, 100));
  EXPECT_TRUE(Contains(e.what(), "expands to more than 2^64 runs"));
}

TEST(ConfigSweep, MaxPointsRaisesOrLowersTheLimit) {
  EXPECT_TRUE(Contains(parse_error(sweep_of(2, 3, "max_points = 8\n")).what(),
                       "expands to 9 runs (3 x 3), more than max_points = 8"));
  // Past the count, each run is validated: train has no keys k0, k1.
  EXPECT_TRUE(Contains(parse_error(sweep_of(2, 3, "max_points = 9\n")).what(), "train.k0"));
  EXPECT_TRUE(Contains(parse_error(sweep_of(1, 1, "max_points = 0\n")).what(), "sweep.max_points"));
}

TEST(ConfigSweep, AZipSweepIsCountedToo) {
  EXPECT_TRUE(Contains(parse_error(sweep_of(2, 3, "mode = \"zip\"\nmax_points = 2\n")).what(),
                       "[sweep] pairs 3 runs, more than max_points = 2"));
}

TEST(ConfigSweep, EveryKeyNeedsANonEmptyList) {
  ConfigError e = parse_error(kMinimal + "[sweep]\n\"train.epochs\" = []\n");
  EXPECT_TRUE(
      Contains(e.what(), "exp.toml:7:1: [sweep] train.epochs must be a non-empty list of values"));
  EXPECT_TRUE(Contains(
      parse_error(kMinimal + "[sweep.train]\nepochs = 3\n").what(),
      "exp.toml:7:1: [sweep] train.epochs must be a non-empty list of values, not integer 3"));
}

TEST(ConfigSweep, ABadValueNamesTheSweepKeysPlace) {
  ConfigError e = parse_error(kMinimal + "[sweep]\n\"train.batch_size\" = [32, 0]\n");
  EXPECT_TRUE(Contains(
      e.what(), "exp.toml:7:1: train.batch_size = 0 is out of range: it must be at least 1"));
  EXPECT_TRUE(
      Contains(parse_error(kMinimal + "[sweep]\n\"train.batch_size\" = [32, \"x\"]\n").what(),
               "exp.toml:7:1: train.batch_size must be an integer, not string \"x\""));
}

TEST(ConfigSweep, ASweptKeyMustBeKnownToItsSection) {
  ConfigError e = parse_error(kMinimal + "[sweep]\n\"model.activaton\" = [\"tanh\"]\n");
  EXPECT_TRUE(
      Contains(e.what(), "exp.toml:7:1: unknown key model.activaton; did you mean 'activation'?"));
  EXPECT_TRUE(
      Contains(parse_error(kMinimal + "[sweep]\n\"trian.epochs\" = [1]\n").what(),
               "exp.toml:7:1: [sweep] trian.epochs names no known section; did you mean 'train'?"));
  EXPECT_TRUE(Contains(parse_error(kMinimal + "[sweep]\nepochs = [1]\n").what(),
                       "exp.toml:7:1: [sweep] epochs is not a dotted key section.key"));
}

TEST(ConfigSweep, ExperimentWideKeysCannotBeSwept) {
  ConfigError e =
      parse_error(kMinimal + "[sweep]\n\"experiment.results\" = [\"a.h5\", \"b.h5\"]\n");
  EXPECT_TRUE(Contains(e.what(), "[sweep] experiment.results is the same for every run"));
  EXPECT_EQ(parse(kMinimal + "[sweep]\n\"experiment.seed\" = [1, 2]\n").runs.size(), 2u);
}

TEST(ConfigSweep, AKeyIsSweptOnce) {
  ConfigError e =
      parse_error(kMinimal + "[sweep]\n\"train.epochs\" = [1]\n[sweep.train]\nepochs = [2]\n");
  EXPECT_TRUE(Contains(e.what(),
                       "exp.toml:9:1: [sweep] train.epochs is swept twice (also at exp.toml:7:1)"));
}

TEST(ConfigSweep, AComponentNameCanBeSweptAndPicksTheSchemaOfEachRun) {
  const Experiment e = parse(kMinimal + "[sweep]\n\"model.name\" = [\"lenet5\", \"mlp\"]\n");
  ASSERT_EQ(e.runs.size(), 2u);
  EXPECT_EQ(e.runs[0].model.name, "lenet5");
  EXPECT_EQ(e.runs[0].model.options.get_string("activation"), "relu");
  EXPECT_EQ(e.runs[1].model.name, "mlp");
  EXPECT_EQ(e.runs[1].model.options.get_ints("hidden"), (std::vector<int64_t>{128}));
  EXPECT_EQ(e.runs[1].label, "model.name=mlp");

  ConfigError error = parse_error(kMinimal +
                                  "[sweep]\n\"model.name\" = [\"lenet5\", \"mlp\"]\n"
                                  "\"model.activation\" = [\"tanh\"]\n");
  EXPECT_TRUE(Contains(error.what(), "exp.toml:8:1: unknown key model.activation"));
  EXPECT_TRUE(Contains(error.hint(), "known keys: name, hidden, norms"));
}

TEST(ConfigSweep, ASweptSectionAbsentFromTheFileStartsEmpty) {
  ConfigError e =
      parse_error(kMinimal + "[sweep]\n\"strategy.name\" = [\"single\", \"pipeline\"]\n");
  EXPECT_TRUE(Contains(e.what(), "exp.toml:1:1: missing required key strategy.stages"));
}

// Strategies whose keys differ, in one sweep: each table's keys over the section's own.
TEST(ConfigSweep, ASectionSweptWholeTakesEachTablesKeysOverItsOwn) {
  const Experiment e = parse(kMinimal +
                             "[strategy]\nname = \"ddp\"\n"
                             "[sweep]\nstrategy = [{name = \"single\"},"
                             " {name = \"pipeline\", stages = 2}, {backend = \"gloo\"}]\n"
                             "\"train.epochs\" = [1, 2]\n");
  ASSERT_EQ(e.runs.size(), 6u);
  EXPECT_EQ(e.swept_keys.front(), "strategy");
  EXPECT_EQ(labels(e)[0], "strategy=single train.epochs=1");
  EXPECT_EQ(labels(e)[2], "strategy=pipeline(stages=2) train.epochs=1");
  EXPECT_EQ(labels(e)[4], "strategy=backend=gloo train.epochs=1");
  EXPECT_EQ(e.runs[2].strategy.name, "pipeline");
  EXPECT_EQ(e.runs[2].strategy.options.get_int("stages"), 2);
  EXPECT_EQ(e.runs[4].strategy.name, "ddp");
  EXPECT_EQ(e.runs[4].strategy.options.get_string("backend"), "gloo");
  EXPECT_EQ(std::get<std::string>(e.runs[2].sweep_point[0].second), "pipeline(stages=2)");
}

TEST(ConfigSweep, ASectionSweptWholeTakesTablesAndValidatesEachRun) {
  ConfigError not_tables = parse_error(kMinimal + "[sweep]\nstrategy = [\"ddp\"]\n");
  EXPECT_TRUE(Contains(not_tables.what(),
                       "exp.toml:7:1: [sweep] strategy sweeps the section whole: its values "
                       "must be tables"))
      << not_tables.what();
  ConfigError foreign_key =
      parse_error(kMinimal + "[sweep]\nstrategy = [{name = \"ddp\", stages = 2}]\n");
  EXPECT_TRUE(Contains(foreign_key.what(), "unknown key strategy.stages")) << foreign_key.what();
  ConfigError whole_experiment = parse_error(kMinimal + "[sweep]\nexperiment = [{seed = 1}]\n");
  EXPECT_TRUE(Contains(whole_experiment.what(), "[sweep] experiment cannot be swept whole"));
}

// A key of [strategy] that one swept strategy lacks fails that point only: its error names the
// point and where the key came from, as the key's place alone points at a valid [strategy].
TEST(ConfigSweep, AKeyInheritedFromTheSectionNamesTheSweepPoint) {
  const std::string strategy = kMinimal + "[strategy]\nname = \"ddp\"\nbackend = \"gloo\"\n";
  ConfigError whole =
      parse_error(strategy + "[sweep]\nstrategy = [{name = \"ddp\"}, {name = \"single\"}]\n");
  EXPECT_TRUE(Contains(whole.what(),
                       "exp.toml:8:1: unknown key strategy.backend, inherited from [strategy] "
                       "by sweep point 2 (strategy=single)"));
  EXPECT_TRUE(Contains(whole.hint(), "known keys: name; "));

  ConfigError by_name =
      parse_error(strategy + "[sweep]\n\"strategy.name\" = [\"ddp\", \"single\"]\n");
  EXPECT_TRUE(Contains(by_name.what(),
                       "exp.toml:8:1: unknown key strategy.backend, inherited from [strategy] "
                       "by sweep point 2 (strategy.name=single)"));

  // The product varies the first key slowest: "single" (index 1 of the strategies) with the
  // first of the 2 epochs (index 0) is point 1 * 2 + 0, counted from 1.
  ConfigError product = parse_error(strategy +
                                    "[sweep]\n\"strategy.name\" = [\"ddp\", \"single\"]\n"
                                    "\"train.epochs\" = [1, 2]\n");
  EXPECT_TRUE(Contains(product.what(), "by sweep point " + std::to_string(1 * 2 + 0 + 1) +
                                           " (strategy.name=single)"));
}

TEST(ConfigSweep, ASetOfAKeyThatASweptTableSetsConflicts) {
  const std::string file = kMinimal + "[sweep]\nstrategy = [{name = \"pipeline\", stages = 2}]\n";
  ConfigError e = parse_error(file, {"strategy.stages=3"});
  EXPECT_TRUE(Contains(e.what(), "--set strategy.stages=3: conflicts with [sweep] strategy"))
      << e.what();
}

TEST(ConfigSweep, OpsAndListValuesCanBeSwept) {
  const Experiment e = parse(kMinimal +
                             "[sweep]\n\"ops.gelu.approximate\" = [\"none\", \"tanh\"]\n"
                             "\"optimizer.betas\" = [[0.9, 0.99]]\n");
  ASSERT_EQ(e.runs.size(), 2u);
  EXPECT_EQ(e.runs[1].ops.at("gelu").get_string("approximate"), "tanh");
  EXPECT_EQ(e.runs[1].optimizer.get_doubles("betas"), (std::vector<double>{0.9, 0.99}));
  EXPECT_EQ(e.runs[1].label, "ops.gelu.approximate=tanh optimizer.betas=[0.9, 0.99]");
}

TEST(ConfigSweep, ValuesAreTypedByTheSchema) {
  const Experiment e = parse(kMinimal + "[sweep]\n\"optimizer.lr\" = [1, 0.5]\n");
  EXPECT_TRUE(std::holds_alternative<double>(e.runs[0].sweep_point[0].second));
  EXPECT_EQ(e.runs[0].label, "optimizer.lr=1.0");
}

TEST(ConfigSweep, RepeatedValuesWouldMakeTheSameRunTwice) {
  ConfigError e = parse_error(kMinimal + "[sweep]\n\"optimizer.lr\" = [1, 1.0]\n");
  EXPECT_TRUE(Contains(e.what(),
                       "exp.toml:6:1: [sweep] makes runs 1 (optimizer.lr=1.0) and "
                       "2 (optimizer.lr=1.0) the same"));
}

TEST(ConfigSweep, AnEmptySweepIsOneRun) {
  const Experiment e = parse(kMinimal + "[sweep]\n");
  EXPECT_EQ(e.runs.size(), 1u);
  EXPECT_TRUE(e.swept_keys.empty());
}

}  // namespace
}  // namespace runner::config
