// The list of transforms: seeding from (seed, epoch, batch), the test split, shapes, and the
// errors of make_transform.
#include <gtest/gtest.h>

#include "augment_test_support.hpp"

namespace runner::augment {
namespace {

using test::config_error;
using test::Contains;
using test::images;
using test::transform;

Augmentation strong() {
  return Augmentation(
      {transform("random_affine",
                 {{"degrees", 30.0}, {"translate", std::vector<double>{0.2, 0.2}}}),
       transform("horizontal_flip"), transform("color_jitter", {{"brightness", 0.5}}),
       transform("normalize",
                 {{"mean", std::vector<double>{0.5}}, {"std", std::vector<double>{0.25}}})});
}

TEST(Augmentation, TheSameSeedEpochAndBatchGiveTheSameBatch) {
  const Augmentation augmentation = strong();
  const torch::Tensor x = images(8, 1, 10, 10);
  const torch::Tensor out = augmentation.apply(x, Split::train, 3, 2, 5);
  EXPECT_TRUE(out.equal(augmentation.apply(x, Split::train, 3, 2, 5)));
  EXPECT_FALSE(out.equal(augmentation.apply(x, Split::train, 3, 2, 6)));
  EXPECT_FALSE(out.equal(augmentation.apply(x, Split::train, 3, 3, 5)));
  EXPECT_FALSE(out.equal(augmentation.apply(x, Split::train, 4, 2, 5)));
}

TEST(Augmentation, TheGlobalGeneratorIsUntouched) {
  const torch::Tensor x = images(2, 1, 6, 6);
  torch::manual_seed(5);
  const torch::Tensor expected = torch::rand({4});
  torch::manual_seed(5);
  strong().apply(x, Split::train, 0, 0, 0);
  EXPECT_TRUE(torch::rand({4}).equal(expected));
}

TEST(Augmentation, TheTestSplitGetsOnlyTheDeterministicTransforms) {
  const torch::Tensor x = images(4, 1, 6, 6);
  const torch::Tensor out = strong().apply(x, Split::test, 0, 0, 0);
  EXPECT_TRUE(torch::allclose(out, (x - 0.5) / 0.25));
  EXPECT_FALSE(torch::allclose(strong().apply(x, Split::train, 0, 0, 0), (x - 0.5) / 0.25));
}

TEST(Augmentation, OnlyNormalizeIsDeterministic) {
  const std::vector<config::AugmentConfig> random = {
      transform("random_affine"), transform("random_rotation", {{"degrees", 1.0}}),
      transform("random_crop"), transform("horizontal_flip"), transform("color_jitter")};
  for (const auto& config : random) EXPECT_TRUE(make_transform(config, 0)->random()) << config.name;
  const auto normalize =
      transform("normalize", {{"mean", std::vector<double>{0}}, {"std", std::vector<double>{1}}});
  EXPECT_FALSE(make_transform(normalize, 0)->random());
}

TEST(Augmentation, NoTransformsLeaveAnyBatchAsItIs) {
  const Augmentation none;
  EXPECT_TRUE(none.empty());
  const torch::Tensor tokens = torch::arange(12).view({3, 4});
  EXPECT_TRUE(none.apply(tokens, Split::train, 0, 0, 0).equal(tokens));
  EXPECT_EQ(none.output_shape({4}), (std::vector<int64_t>{4}));
}

TEST(Augmentation, OutputShapeFollowsTheTransforms) {
  const Augmentation crop_then_normalize(
      {transform("random_crop", {{"size", std::vector<int64_t>{4}}}),
       transform("normalize",
                 {{"mean", std::vector<double>{0}}, {"std", std::vector<double>{1}}})});
  EXPECT_EQ(crop_then_normalize.output_shape({1, 6, 6}), (std::vector<int64_t>{1, 4, 4}));
  EXPECT_EQ(strong().output_shape({1, 6, 6}), (std::vector<int64_t>{1, 6, 6}));
}

TEST(Augmentation, SamplesThatAreNoImagesAreAConfigError) {
  const std::string error = config_error([] { strong().output_shape({28, 28}); });
  EXPECT_TRUE(Contains(error,
                       "[[dataset.augment]] transforms images (C, H, W), but the "
                       "dataset's samples have shape (28, 28)"));
}

TEST(MakeTransform, RefusesWhatTheSchemaCannotExpressNamingThePosition) {
  const auto reversed = transform("random_affine", {{"scale", std::vector<double>{1.2, 0.8}}});
  EXPECT_TRUE(Contains(config_error([&] { make_transform(reversed, 3); }),
                       "dataset.augment[3].scale must be [min, max] with min <= max"));
  EXPECT_TRUE(Contains(config_error([&] {
                         Augmentation({transform("horizontal_flip"), reversed});
                       }),
                       "dataset.augment[1].scale"));
  config::AugmentConfig unknown{"blur", Options("dataset.augment[0]")};
  EXPECT_TRUE(Contains(config_error([&] { make_transform(unknown, 0); }),
                       "unknown transform 'blur' in dataset.augment[0]"));
}

}  // namespace
}  // namespace runner::augment
