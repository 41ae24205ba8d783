// [[dataset.augment]]: the host's transforms validated in file order, kept away from the
// dataset's schema, written into the resolved text, and refused by --set and [sweep].
#include <gtest/gtest.h>

#include "augment/schemas.hpp"
#include "test_support.hpp"

namespace runner::config {
namespace {

using test::Contains;
using test::kMinimal;
using test::parse;
using test::parse_error;

// kMinimal holds 5 lines, so the first table's header is on line 6 and its name on line 7.
const std::string kAffineThenNormalize = kMinimal +
                                         "[[dataset.augment]]\n"
                                         "name = \"random_affine\"\n"
                                         "degrees = 15\n"
                                         "translate = [0.1, 0.1]\n"
                                         "scale = [0.8, 1.2]\n"
                                         "[[dataset.augment]]\n"
                                         "name = \"normalize\"\n"
                                         "mean = [0.1307]\n"
                                         "std = [0.3081]\n";

std::string with_transform(const std::string& body) {
  return kMinimal + "[[dataset.augment]]\n" + body;
}

TEST(AugmentConfig, TablesArriveInFileOrderWithDefaults) {
  const RunConfig run = parse(kAffineThenNormalize).runs.at(0);
  ASSERT_EQ(run.augment.size(), 2u);
  const Options& affine = run.augment[0].options;
  EXPECT_EQ(run.augment[0].name, "random_affine");
  EXPECT_EQ(affine.get_double("degrees"), 15.0);
  EXPECT_EQ(affine.get_doubles("translate"), (std::vector<double>{0.1, 0.1}));
  EXPECT_EQ(affine.get_doubles("scale"), (std::vector<double>{0.8, 1.2}));
  EXPECT_EQ(affine.get_double("shear"), 0.0);
  EXPECT_EQ(affine.get_string("interpolation"), "nearest");
  EXPECT_EQ(affine.get_double("fill"), 0.0);
  EXPECT_FALSE(affine.has("name"));
  EXPECT_EQ(affine.section(), "dataset.augment[0]");
  EXPECT_EQ(run.augment[1].name, "normalize");
  EXPECT_EQ(run.augment[1].options.get_doubles("mean"), (std::vector<double>{0.1307}));
  EXPECT_EQ(run.augment[1].options.get_doubles("std"), (std::vector<double>{0.3081}));
}

TEST(AugmentConfig, TheDatasetNeverSeesTheTables) {
  const RunConfig run = parse(kAffineThenNormalize).runs.at(0);
  EXPECT_FALSE(run.dataset.options.has("augment"));
  EXPECT_EQ(run.dataset.options.values().size(), 2u);  // data_dir, train_size
}

TEST(AugmentConfig, NoTablesOrAnEmptyListIsNoAugmentation) {
  EXPECT_TRUE(parse(kMinimal).runs.at(0).augment.empty());
  const std::string empty_list =
      "[dataset]\nname = \"mnist\"\ndata_dir = \"/d\"\naugment = []\n"
      "[model]\nname = \"lenet5\"\n";
  EXPECT_TRUE(parse(empty_list).runs.at(0).augment.empty());
}

TEST(AugmentConfig, EveryTransformHasASchemaAndADescription) {
  const std::vector<std::string> expected = {"random_affine",   "random_rotation", "random_crop",
                                             "horizontal_flip", "color_jitter",    "normalize"};
  EXPECT_EQ(augment::transform_names(), expected);
  for (const auto& name : augment::transform_names()) {
    EXPECT_NE(augment::transform_schema(name), nullptr) << name;
    EXPECT_FALSE(augment::transform_description(name).empty()) << name;
  }
  EXPECT_EQ(augment::transform_schema("blur"), nullptr);
  EXPECT_TRUE(augment::transform_description("blur").empty());
}

TEST(AugmentConfig, EachTransformTakesItsOwnKeys) {
  const RunConfig run =
      parse(with_transform("name = \"random_crop\"\nsize = [24]\npadding = 2\n"
                           "[[dataset.augment]]\nname = \"color_jitter\"\nbrightness = 0.4\n"
                           "[[dataset.augment]]\nname = \"horizontal_flip\"\n"
                           "[[dataset.augment]]\nname = \"random_rotation\"\ndegrees = 10\n"))
          .runs.at(0);
  ASSERT_EQ(run.augment.size(), 4u);
  EXPECT_EQ(run.augment[0].options.get_ints("size"), (std::vector<int64_t>{24}));
  EXPECT_EQ(run.augment[0].options.get_int("padding"), 2);
  EXPECT_EQ(run.augment[1].options.get_double("brightness"), 0.4);
  EXPECT_EQ(run.augment[1].options.get_double("saturation"), 0.0);
  EXPECT_EQ(run.augment[2].options.get_double("p"), 0.5);
  EXPECT_EQ(run.augment[3].options.get_double("degrees"), 10.0);
}

TEST(AugmentConfig, AnUnknownTransformNamesItsPlaceAndTheKnownOnes) {
  const ConfigError error = parse_error(with_transform("name = \"random_afine\"\n"));
  EXPECT_TRUE(Contains(error.what(),
                       "exp.toml:7:1: unknown transform 'random_afine' in "
                       "dataset.augment[0]; did you mean 'random_affine'?"));
  EXPECT_TRUE(Contains(error.hint(),
                       "known transforms: random_affine, random_rotation, "
                       "random_crop, horizontal_flip, color_jitter, normalize"));
}

TEST(AugmentConfig, ATableNeedsAName) {
  const ConfigError error = parse_error(with_transform("degrees = 3\n"));
  EXPECT_TRUE(Contains(error.what(), "exp.toml:6:1: dataset.augment[0] needs a name"));
  EXPECT_TRUE(Contains(error.hint(), "known transforms: random_affine"));
  EXPECT_TRUE(Contains(parse_error(with_transform("name = 3\n")).what(),
                       "exp.toml:7:1: dataset.augment[0].name must be a string, not integer 3"));
}

TEST(AugmentConfig, AnUnknownKeyNamesTheTablesPosition) {
  const ConfigError error = parse_error(kAffineThenNormalize +
                                        "[[dataset.augment]]\nname = \"random_rotation\"\n"
                                        "degreez = 5\n");
  EXPECT_TRUE(Contains(error.what(),
                       "exp.toml:17:1: unknown key dataset.augment[2].degreez; "
                       "did you mean 'degrees'?"));
  EXPECT_TRUE(Contains(error.hint(), "known keys: name, degrees, interpolation, fill"));
}

TEST(AugmentConfig, TypesRangesAndChoicesAreChecked) {
  EXPECT_TRUE(Contains(
      parse_error(with_transform("name = \"random_affine\"\ndegrees = \"a lot\"\n")).what(),
      "exp.toml:8:1: dataset.augment[0].degrees must be a float, not string \"a lot\""));
  EXPECT_TRUE(Contains(
      parse_error(with_transform("name = \"random_affine\"\ntranslate = [0.1, 1.5]\n")).what(),
      "exp.toml:8:1: dataset.augment[0].translate[1] = 1.5 is out of range"));
  EXPECT_TRUE(Contains(parse_error(with_transform("name = \"horizontal_flip\"\np = -0.5\n")).what(),
                       "dataset.augment[0].p = -0.5 is out of range: it must be between 0 and 1"));
  EXPECT_TRUE(
      Contains(parse_error(with_transform("name = \"random_rotation\"\ndegrees = 5\n"
                                          "interpolation = \"bilinearr\"\n"))
                   .what(),
               "dataset.augment[0].interpolation = \"bilinearr\" is not one of nearest, bilinear; "
               "did you mean 'bilinear'?"));
}

TEST(AugmentConfig, ARequiredKeyMustBeGiven) {
  const ConfigError error = parse_error(with_transform("name = \"random_rotation\"\n"));
  EXPECT_TRUE(
      Contains(error.what(), "exp.toml:6:1: missing required key dataset.augment[0].degrees"));
}

TEST(AugmentConfig, WhatTheSchemaCannotSayIsCheckedAtTheKey) {
  EXPECT_TRUE(
      Contains(parse_error(with_transform("name = \"random_affine\"\nscale = [1.2, 0.8]\n")).what(),
               "exp.toml:8:1: dataset.augment[0].scale must be [min, max] with min <= max, not "
               "[1.2, 0.8]"));
  EXPECT_TRUE(
      Contains(parse_error(with_transform("name = \"random_affine\"\nscale = [0.0, 1.0]\n")).what(),
               "dataset.augment[0].scale must be above 0"));
  EXPECT_TRUE(
      Contains(parse_error(with_transform("name = \"random_affine\"\ntranslate = [0.1]\n")).what(),
               "dataset.augment[0].translate must hold two values [tx, ty], not [0.1]"));
  EXPECT_TRUE(
      Contains(parse_error(with_transform("name = \"random_crop\"\nsize = [1, 2, 3]\n")).what(),
               "dataset.augment[0].size must hold at most two values [h, w], not [1, 2, 3]"));
  EXPECT_TRUE(Contains(
      parse_error(with_transform("name = \"normalize\"\nmean = [0.5]\nstd = [0.5, 0.0]\n")).what(),
      "exp.toml:9:1: dataset.augment[0].std must be above 0, not [0.5, 0.0]"));
  EXPECT_TRUE(
      Contains(parse_error(with_transform("name = \"normalize\"\nmean = []\nstd = [1]\n")).what(),
               "dataset.augment[0].mean must hold one value, or one per channel, not []"));
}

TEST(AugmentConfig, AugmentMustBeAnArrayOfTables) {
  const std::string one_table = kMinimal + "[dataset.augment]\nname = \"normalize\"\n";
  EXPECT_TRUE(Contains(parse_error(one_table).what(),
                       "dataset.augment must be an array of tables [[dataset.augment]], not "
                       "a table"));
  const std::string number =
      "[dataset]\nname = \"mnist\"\ndata_dir = \"/d\"\naugment = 3\n"
      "[model]\nname = \"lenet5\"\n";
  EXPECT_TRUE(Contains(parse_error(number).what(),
                       "exp.toml:4:1: dataset.augment must be an array of tables"));
}

TEST(AugmentConfig, SetCannotChangeTheList) {
  for (const std::string set :
       {"dataset.augment=[]", "dataset.augment.degrees=3", "dataset.augment[0].degrees=3"}) {
    const ConfigError error = parse_error(kAffineThenNormalize, {set});
    EXPECT_TRUE(
        Contains(error.what(), "--set " + set + ": augmentation lists cannot be set with --set"));
    EXPECT_TRUE(Contains(error.hint(), "[[dataset.augment]]"));
  }
}

TEST(AugmentConfig, TheListCannotBeSwept) {
  const ConfigError quoted =
      parse_error(kAffineThenNormalize + "[sweep]\n\"dataset.augment\" = [1, 2]\n");
  EXPECT_TRUE(Contains(
      quoted.what(), "exp.toml:16:1: [sweep] dataset.augment: augmentation lists cannot be swept"));
  const ConfigError nested =
      parse_error(kAffineThenNormalize + "[sweep.dataset.augment]\ndegrees = [5, 10]\n");
  EXPECT_TRUE(Contains(nested.what(),
                       "[sweep] dataset.augment.degrees: augmentation lists cannot be swept"));
}

TEST(AugmentConfig, EveryRunOfASweepKeepsTheList) {
  const Experiment e = parse(kAffineThenNormalize + "[sweep]\n\"train.batch_size\" = [32, 64]\n");
  ASSERT_EQ(e.runs.size(), 2u);
  for (const auto& run : e.runs) EXPECT_EQ(run.augment.size(), 2u);
}

TEST(AugmentResolvedToml, HoldsTheTablesInOrderRightAfterTheDataset) {
  const std::string resolved = parse(kAffineThenNormalize).runs.at(0).resolved_toml;
  EXPECT_TRUE(Contains(resolved,
                       "train_size = 0\n"
                       "\n"
                       "[[dataset.augment]]\n"
                       "name = \"random_affine\"\n"
                       "degrees = 15.0\n"
                       "fill = 0.0\n"
                       "interpolation = \"nearest\"\n"
                       "scale = [0.8, 1.2]\n"
                       "shear = 0.0\n"
                       "translate = [0.1, 0.1]\n"
                       "\n"
                       "[[dataset.augment]]\n"
                       "name = \"normalize\"\n"
                       "mean = [0.1307]\n"
                       "std = [0.3081]\n"
                       "\n"
                       "[experiment]\n"));
}

TEST(AugmentResolvedToml, ParsesBackToTheSameRun) {
  const RunConfig run =
      parse(kAffineThenNormalize + "[[dataset.augment]]\nname = \"random_crop\"\n").runs.at(0);
  const RunConfig again = parse(run.resolved_toml).runs.at(0);
  EXPECT_EQ(again.resolved_toml, run.resolved_toml);
  EXPECT_EQ(again.id, run.id);
  ASSERT_EQ(again.augment.size(), 3u);
  for (size_t i = 0; i < run.augment.size(); ++i) {
    EXPECT_EQ(again.augment[i].name, run.augment[i].name);
    EXPECT_EQ(again.augment[i].options.values(), run.augment[i].options.values());
  }
  EXPECT_TRUE(again.augment[2].options.get_ints("size").empty());
}

TEST(AugmentResolvedToml, RunsDifferingOnlyInAugmentationGetDifferentIds) {
  const std::string affine = "[[dataset.augment]]\nname = \"random_affine\"\ndegrees = 15\n";
  const std::string flip = "[[dataset.augment]]\nname = \"horizontal_flip\"\n";
  const std::string none = parse(kMinimal).runs.at(0).id;
  const std::string affine_only = parse(kMinimal + affine).runs.at(0).id;
  const std::string affine_flip = parse(kMinimal + affine + flip).runs.at(0).id;
  const std::string flip_affine = parse(kMinimal + flip + affine).runs.at(0).id;
  const std::string stronger =
      parse(kMinimal + "[[dataset.augment]]\nname = \"random_affine\"\ndegrees = 20\n")
          .runs.at(0)
          .id;
  const std::vector<std::string> ids = {none, affine_only, affine_flip, flip_affine, stronger};
  for (size_t i = 0; i < ids.size(); ++i)
    for (size_t j = 0; j < i; ++j) EXPECT_NE(ids[i], ids[j]) << i << " and " << j;
}

}  // namespace
}  // namespace runner::config
