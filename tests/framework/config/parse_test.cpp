// Reading an experiment file: sections, components, ops, defaults, the experiment's name, and
// the errors about the file's shape.
#include <gtest/gtest.h>

#include "config/load_experiment.hpp"
#include "test_support.hpp"

namespace runner::config {
namespace {

using test::Contains;
using test::kMinimal;
using test::parse;
using test::parse_error;

TEST(ConfigParse, MinimalFileGivesOneRunWithEveryDefault) {
  Experiment e = parse(kMinimal);
  EXPECT_EQ(e.name, "exp");
  EXPECT_EQ(e.file, "exp.toml");
  EXPECT_TRUE(e.swept_keys.empty());
  ASSERT_EQ(e.runs.size(), 1u);
  const RunConfig& run = e.runs[0];
  EXPECT_EQ(run.label, "");
  EXPECT_TRUE(run.sweep_point.empty());
  EXPECT_EQ(run.train.epochs, 1);
  EXPECT_EQ(run.train.batch_size, 64);
  EXPECT_EQ(run.train.device, "cpu");
  EXPECT_FALSE(run.train.deterministic);
  EXPECT_EQ(run.optimizer.get_string("name"), "adam");
  EXPECT_EQ(run.optimizer.get_doubles("betas"), (std::vector<double>{0.9, 0.999}));
  EXPECT_EQ(run.schedule.get_string("name"), "constant");
  EXPECT_EQ(run.experiment.get_int("seed"), 0);
  EXPECT_TRUE(run.experiment.get_strings("plugin_path").empty());
  EXPECT_EQ(run.dataset.name, "mnist");
  EXPECT_EQ(run.dataset.options.get_string("data_dir"), "/data/mnist");
  EXPECT_EQ(run.dataset.options.get_int("train_size"), 0);
  EXPECT_FALSE(run.dataset.options.has("name"));
  EXPECT_EQ(run.model.name, "lenet5");
  EXPECT_EQ(run.model.options.get_string("activation"), "relu");
  EXPECT_EQ(run.strategy.name, "single");
  EXPECT_TRUE(run.strategy.options.values().empty());
  EXPECT_TRUE(run.ops.empty());
}

TEST(ConfigParse, EveryOptionsKnowsItsSection) {
  const RunConfig run = parse(kMinimal + "[ops.gelu]\n").runs[0];
  EXPECT_EQ(run.train.keys.section(), "train");
  EXPECT_EQ(run.model.options.section(), "model");
  EXPECT_EQ(run.ops.at("gelu").section(), "ops.gelu");
}

TEST(ConfigParse, GivenValuesReplaceDefaults) {
  const RunConfig run = parse(kMinimal +
                              "[train]\nepochs = 3\ndevice = \"auto\"\ndeterministic = true\n"
                              "[optimizer]\nname = \"sgd\"\nmomentum = 0.9\n"
                              "[experiment]\nplugin_path = [\"/opt/plugins\"]\n")
                            .runs[0];
  EXPECT_EQ(run.train.epochs, 3);
  EXPECT_EQ(run.train.device, "auto");
  EXPECT_TRUE(run.train.deterministic);
  EXPECT_EQ(run.optimizer.get_string("name"), "sgd");
  EXPECT_DOUBLE_EQ(run.optimizer.get_double("momentum"), 0.9);
  EXPECT_EQ(run.experiment.get_strings("plugin_path"), (std::vector<std::string>{"/opt/plugins"}));
}

TEST(ConfigParse, AnIntegerIsAcceptedForAFloatAndBecomesOne) {
  const RunConfig run = parse(kMinimal + "[optimizer]\nlr = 1\nbetas = [0, 1]\n").runs[0];
  EXPECT_TRUE(std::holds_alternative<double>(run.optimizer.get("lr")));
  EXPECT_EQ(run.optimizer.get_double("lr"), 1.0);
  EXPECT_TRUE(std::holds_alternative<std::vector<double>>(run.optimizer.get("betas")));
  EXPECT_EQ(run.optimizer.get_doubles("betas"), (std::vector<double>{0.0, 1.0}));
}

TEST(ConfigParse, OpsGetAnEntryForEachOpTableOnly) {
  const RunConfig run = parse(kMinimal + "[ops.gelu]\napproximate = \"tanh\"\n").runs[0];
  ASSERT_EQ(run.ops.size(), 1u);
  EXPECT_EQ(run.ops.at("gelu").get_string("approximate"), "tanh");
  EXPECT_EQ(parse(kMinimal + "[ops.gelu]\n").runs[0].ops.at("gelu").get_string("approximate"),
            "none");
}

TEST(ConfigParse, StrategyIsTheGivenOneOrSingle) {
  EXPECT_EQ(parse(kMinimal + "[strategy]\n").runs[0].strategy.name, "single");
  const RunConfig run =
      parse(kMinimal + "[strategy]\nname = \"ddp\"\nbackend = \"nccl\"\n").runs[0];
  EXPECT_EQ(run.strategy.name, "ddp");
  EXPECT_EQ(run.strategy.options.get_string("backend"), "nccl");
}

TEST(ConfigParse, TheExperimentNameIsGivenOrTheFileStem) {
  EXPECT_EQ(parse(kMinimal).name, "exp");
  const Experiment e = parse(kMinimal + "[experiment]\nname = \"lenet-v1.2_b\"\n");
  EXPECT_EQ(e.name, "lenet-v1.2_b");
  EXPECT_EQ(e.runs[0].experiment.get_string("name"), "lenet-v1.2_b");
  test::FakeSchemas schemas;
  const Experiment from_path = parse_experiment(kMinimal, "dir/quickstart.toml", {}, schemas);
  EXPECT_EQ(from_path.name, "quickstart");
  EXPECT_EQ(from_path.runs[0].experiment.get_string("name"), "quickstart");
}

TEST(ConfigParse, AnExperimentNameMustBePlain) {
  ConfigError e = parse_error(kMinimal + "[experiment]\nname = \"my exp\"\n");
  EXPECT_TRUE(Contains(e.what(), "exp.toml:7:1: experiment.name = \"my exp\" is not a plain name"));
  EXPECT_TRUE(Contains(e.hint(), "letters, digits"));

  test::FakeSchemas schemas;
  try {
    parse_experiment(kMinimal, "my exp.toml", {}, schemas);
    ADD_FAILURE() << "a file stem with a space made a name";
  } catch (const ConfigError& error) {
    EXPECT_TRUE(Contains(error.what(), "my exp.toml:1:1: the file's name 'my exp'"));
    EXPECT_TRUE(Contains(error.hint(), "set [experiment] name"));
  }
}

TEST(ConfigParse, ATomlSyntaxErrorNamesItsPlace) {
  ConfigError e = parse_error(kMinimal + "[train]\nepochs = = 3\n");
  EXPECT_TRUE(Contains(e.what(), "exp.toml:7:")) << e.what();
  EXPECT_EQ(e.exit_code(), 2);
}

TEST(ConfigParse, AnUnknownSectionListsTheKnownOnes) {
  ConfigError e = parse_error(kMinimal + "[trian]\nepochs = 3\n");
  EXPECT_TRUE(Contains(e.what(), "exp.toml:6:2: unknown section [trian]; did you mean 'train'?"));
  EXPECT_TRUE(Contains(e.hint(),
                       "known sections: experiment, train, optimizer, schedule, checkpoint, fault, "
                       "dataset, "
                       "model, strategy, ops, sweep"));
}

TEST(ConfigParse, ATopLevelKeyIsAnUnknownSection) {
  ConfigError e = parse_error("epochs = 3\n" + kMinimal);
  EXPECT_TRUE(Contains(e.what(), "exp.toml:1:1: unknown section [epochs]"));
}

TEST(ConfigParse, ASectionMustBeATable) {
  ConfigError e = parse_error("train = 3\n" + kMinimal);
  EXPECT_TRUE(Contains(e.what(), "exp.toml:1:1: train must be a table [train], not integer 3"));
  e = parse_error(kMinimal + "[ops]\ngelu = \"tanh\"\n");
  EXPECT_TRUE(Contains(e.what(), "exp.toml:7:1: ops.gelu must be a table [ops.gelu]"));
}

TEST(ConfigParse, DatasetAndModelAreRequired) {
  ConfigError e = parse_error("[model]\nname = \"lenet5\"\n");
  EXPECT_TRUE(Contains(e.what(), "exp.toml:1:1: missing section [dataset]"));
  EXPECT_TRUE(Contains(e.hint(), "known datasets: mnist"));
  e = parse_error("[dataset]\nname = \"mnist\"\ndata_dir = \"d\"\n");
  EXPECT_TRUE(Contains(e.what(), "exp.toml:1:1: missing section [model]"));
  EXPECT_TRUE(Contains(e.hint(), "known models: lenet5, mlp"));
}

TEST(ConfigParse, AComponentNeedsAName) {
  ConfigError e = parse_error(kMinimal.substr(0, kMinimal.find("[model]")) + "\n[model]\n");
  EXPECT_TRUE(Contains(e.what(), "exp.toml:5:1: [model] needs a name"));
  EXPECT_TRUE(Contains(e.hint(), "known models: lenet5, mlp"));
}

TEST(ConfigParse, AnUnknownComponentNameListsTheInstalledOnes) {
  ConfigError e = parse_error(
      "[dataset]\nname = \"mnist\"\ndata_dir = \"d\"\n"
      "[model]\nname = \"lenett5\"\n");
  EXPECT_TRUE(Contains(e.what(), "exp.toml:5:1: unknown model 'lenett5'; did you mean 'lenet5'?"));
  EXPECT_TRUE(Contains(e.hint(), "known models: lenet5, mlp"));
}

TEST(ConfigParse, AnUnknownStrategyListsTheInstalledOnes) {
  ConfigError e = parse_error(kMinimal + "[strategy]\nname = \"dpp\"\n");
  EXPECT_TRUE(Contains(e.what(), "exp.toml:7:1: unknown strategy 'dpp'; did you mean 'ddp'?"));
  EXPECT_EQ(e.hint(),
            "known strategies: ddp, pipeline, single; a strategy of a plugin not installed here: "
            "add its folder with --plugin-path DIR or RUNNER_PLUGIN_PATH");
}

TEST(ConfigParse, AnUnknownOpListsTheInstalledOnes) {
  ConfigError e = parse_error(kMinimal + "[ops.gelo]\n");
  EXPECT_TRUE(Contains(e.what(), "exp.toml:6:1: unknown op 'gelo'; did you mean 'gelu'?"));
  EXPECT_TRUE(Contains(e.hint(), "known ops: gelu"));
}

TEST(ConfigParse, AComponentNameMustBeAString) {
  ConfigError e = parse_error("[dataset]\nname = \"mnist\"\ndata_dir = \"d\"\n[model]\nname = 5\n");
  EXPECT_TRUE(Contains(e.what(), "exp.toml:5:1: model.name must be a string, not integer 5"));
}

TEST(ConfigParse, TheTensorboardFolderMustBeAString) {
  ConfigError e = parse_error(kMinimal + "[experiment]\ntensorboard = true\n");
  EXPECT_TRUE(Contains(e.what(),
                       "exp.toml:7:1: experiment.tensorboard must be a string, not "
                       "bool true"))
      << e.what();
}

}  // namespace
}  // namespace runner::config
