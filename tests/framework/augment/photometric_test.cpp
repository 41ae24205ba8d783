// color_jitter (torchvision's brightness, contrast and saturation, values kept in [0, 1]) and
// normalize ((x - mean) / std per channel).
#include <gtest/gtest.h>

#include "augment_test_support.hpp"

namespace runner::augment {
namespace {

using test::config_error;
using test::Contains;
using test::images;
using test::train_batch;
using test::transform;

// (N, 1, H, W): the luma weights torchvision uses.
torch::Tensor luma(const torch::Tensor& x) {
  return 0.2989 * x.narrow(1, 0, 1) + 0.587 * x.narrow(1, 1, 1) + 0.114 * x.narrow(1, 2, 1);
}

TEST(ColorJitter, ZeroStrengthIsTheIdentity) {
  const torch::Tensor x = images(4, 3, 5, 5, -0.5, 1.5);  // outside [0, 1]: no clamp either
  EXPECT_TRUE(train_batch(transform("color_jitter"), x).equal(x));
}

TEST(ColorJitter, StaysInTheUnitRangeAndChangesTheImages) {
  const torch::Tensor x = images(16, 3, 6, 6);
  const torch::Tensor out = train_batch(
      transform("color_jitter", {{"brightness", 0.8}, {"contrast", 0.8}, {"saturation", 0.8}}), x);
  EXPECT_EQ(out.sizes(), x.sizes());
  EXPECT_GE(out.min().item<float>(), 0.0f);
  EXPECT_LE(out.max().item<float>(), 1.0f);
  EXPECT_FALSE(torch::allclose(out, x));
}

// Per sample, the least-squares factor f of after = f * before, and whether that fits.
struct Fit {
  torch::Tensor factor;  // (N)
  bool exact;
};

Fit fit_factor(const torch::Tensor& after, const torch::Tensor& before) {
  const torch::Tensor factor = (after * before).sum({1, 2, 3}) / (before * before).sum({1, 2, 3});
  const bool exact = torch::allclose(after, factor.view({-1, 1, 1, 1}) * before, 0, 1e-5);
  return {factor, exact};
}

TEST(ColorJitter, BrightnessScalesEachSampleByOneFactorInRange) {
  const torch::Tensor x = images(8, 3, 4, 4, 0.1, 0.5);  // 0.5 * 1.9 < 1: nothing clamps
  const Fit fit = fit_factor(train_batch(transform("color_jitter", {{"brightness", 0.9}}), x), x);
  EXPECT_TRUE(fit.exact);
  EXPECT_GE(fit.factor.min().item<float>(), 0.1f - 1e-5f);
  EXPECT_LE(fit.factor.max().item<float>(), 1.9f + 1e-5f);
  EXPECT_GT((fit.factor.max() - fit.factor.min()).item<float>(), 0.0f);  // one per sample
}

TEST(ColorJitter, ContrastBlendsWithTheMeanGray) {
  const torch::Tensor x = images(8, 1, 5, 5, 0.3, 0.7);  // 0.5 +- 1.4 * 0.2 stays in [0, 1]
  const torch::Tensor out = train_batch(transform("color_jitter", {{"contrast", 0.4}}), x);
  const torch::Tensor mean = x.mean({1, 2, 3}, true);
  // out - mean = factor * (x - mean): the mean is kept, deviations scale by one factor
  const Fit fit = fit_factor(out - mean, x - mean);
  EXPECT_TRUE(fit.exact);
  EXPECT_GE(fit.factor.min().item<float>(), 0.6f - 1e-5f);
  EXPECT_LE(fit.factor.max().item<float>(), 1.4f + 1e-5f);
  EXPECT_GT((fit.factor.max() - fit.factor.min()).item<float>(), 0.0f);
}

TEST(ColorJitter, SaturationKeepsTheGrayAndSkipsOneChannel) {
  const torch::Tensor rgb = images(8, 3, 4, 4, 0.4, 0.6);  // gray +- 1.5 * 0.2 stays in [0, 1]
  const torch::Tensor out = train_batch(transform("color_jitter", {{"saturation", 0.5}}), rgb);
  EXPECT_FALSE(torch::allclose(out, rgb));
  // luma(factor * x + (1 - factor) * luma(x)) = luma(x), up to the weights' sum of 0.9999
  EXPECT_TRUE(torch::allclose(luma(out), luma(rgb), 0, 1e-4));
  const torch::Tensor gray = images(4, 1, 4, 4);
  EXPECT_TRUE(train_batch(transform("color_jitter", {{"saturation", 0.5}}), gray).equal(gray));
}

TEST(ColorJitter, NeedsOneOrThreeChannels) {
  const Augmentation jitter({transform("color_jitter", {{"brightness", 0.1}})});
  EXPECT_TRUE(Contains(config_error([&] {
                         jitter.output_shape({2, 4, 4});
                       }),
                       "dataset.augment[0] (color_jitter) needs images with 1 or 3 channels, "
                       "not 2"));
}

TEST(Normalize, SubtractsTheMeanAndDividesByTheStd) {
  const torch::Tensor x = torch::tensor({0.0f, 0.5f, 1.0f}).view({1, 1, 1, 3});
  const torch::Tensor out = train_batch(
      transform("normalize",
                {{"mean", std::vector<double>{0.5}}, {"std", std::vector<double>{0.25}}}),
      x);
  EXPECT_TRUE(torch::allclose(out, torch::tensor({-2.0f, 0.0f, 2.0f}).view({1, 1, 1, 3})));
}

TEST(Normalize, TakesOneValuePerChannel) {
  const torch::Tensor x = torch::tensor({1.0f, 2.0f}).view({1, 2, 1, 1});
  const torch::Tensor out = train_batch(
      transform("normalize",
                {{"mean", std::vector<double>{0.1, 0.2}}, {"std", std::vector<double>{0.5, 2.0}}}),
      x);
  // (1 - 0.1) / 0.5 = 1.8 and (2 - 0.2) / 2 = 0.9
  EXPECT_TRUE(torch::allclose(out, torch::tensor({1.8f, 0.9f}).view({1, 2, 1, 1})));
}

TEST(Normalize, AListOfTheWrongLengthIsAConfigError) {
  const Augmentation normalize(
      {transform("normalize",
                 {{"mean", std::vector<double>{0.1, 0.2, 0.3}}, {"std", std::vector<double>{1}}})});
  const std::string expected =
      "dataset.augment[0].mean has 3 values but the images have 2 channels";
  EXPECT_TRUE(Contains(config_error([&] { normalize.output_shape({2, 4, 4}); }), expected));
  EXPECT_TRUE(Contains(
      config_error([&] { normalize.apply(images(1, 2, 4, 4), Split::test, 0, 0, 0); }), expected));
}

}  // namespace
}  // namespace runner::augment
