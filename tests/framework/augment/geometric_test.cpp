// random_affine, random_rotation, random_crop and horizontal_flip: identities at zero strength,
// exact rotations and shifts through the affine builder, crops as windows of the padded input.
#include "augment/geometric.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <utility>

#include "augment_test_support.hpp"

namespace runner::augment {
namespace {

using test::config_error;
using test::Contains;
using test::images;
using test::train_batch;
using test::transform;

// The same map for each of n samples.
AffineParams fixed(int64_t n, double angle, double dx, double dy) {
  auto all = [n](double v) { return torch::full({n}, v, torch::kFloat64); };
  return {all(angle), all(dx), all(dy), all(1.0), all(0.0)};
}

TEST(RandomAffine, ZeroStrengthIsTheIdentity) {
  const torch::Tensor x = images(4, 3, 8, 10);
  for (const std::string interpolation : {"nearest", "bilinear"}) {
    const torch::Tensor out =
        train_batch(transform("random_affine", {{"interpolation", interpolation}}), x);
    EXPECT_TRUE(torch::allclose(out, x, 0, 1e-6)) << interpolation;
  }
}

TEST(RandomRotation, ZeroDegreesIsTheIdentity) {
  const torch::Tensor x = images(4, 1, 9, 7);
  EXPECT_TRUE(torch::allclose(train_batch(transform("random_rotation", {{"degrees", 0.0}}), x), x,
                              0, 1e-6));
}

TEST(AffineBuilder, NinetyDegreesIsAQuarterTurnCounterClockwise) {
  const torch::Tensor x = images(2, 2, 6, 6);
  const torch::Tensor left =
      resample(x, affine_theta(fixed(2, 90, 0, 0), 6, 6), Interpolation::nearest, 0);
  EXPECT_TRUE(left.equal(torch::rot90(x, 1, {2, 3})));
  const torch::Tensor right =
      resample(x, affine_theta(fixed(2, -90, 0, 0), 6, 6), Interpolation::nearest, 0);
  EXPECT_TRUE(right.equal(torch::rot90(x, -1, {2, 3})));
}

TEST(AffineBuilder, AShiftMovesByWholePixelsAndFillsTheRest) {
  const torch::Tensor x = images(2, 1, 5, 7);
  // 2 pixels right, 1 pixel up: out(y, x) = in(y + 1, x - 2)
  const torch::Tensor theta = affine_theta(fixed(2, 0, 2, -1), 5, 7);
  torch::Tensor expected = torch::full_like(x, 0.5);
  expected.slice(2, 0, 4).slice(3, 2, 7).copy_(x.slice(2, 1, 5).slice(3, 0, 5));
  for (auto interpolation : {Interpolation::nearest, Interpolation::bilinear})
    EXPECT_TRUE(torch::allclose(resample(x, theta, interpolation, 0.5), expected, 0, 1e-5));
}

TEST(AffineBuilder, ThetaOfAZoomIsTheInverseScaleWithoutShift) {
  AffineParams params = fixed(1, 0, 0, 0);
  params.scale = torch::full({1}, 2.0, torch::kFloat64);
  const torch::Tensor expected =
      torch::tensor({0.5, 0.0, 0.0, 0.0, 0.5, 0.0}, torch::kFloat64).view({1, 2, 3});
  EXPECT_TRUE(torch::allclose(affine_theta(params, 4, 8), expected));
}

TEST(RandomAffine, KeepsTheShapeAndVariesPerSample) {
  const torch::Tensor x = images(1, 1, 12, 12).expand({6, 1, 12, 12}).contiguous();
  const torch::Tensor out = train_batch(
      transform("random_affine",
                {{"degrees", 30.0}, {"shear", 10.0}, {"scale", std::vector<double>{0.8, 1.2}}}),
      x);
  EXPECT_EQ(out.sizes(), x.sizes());
  EXPECT_FALSE(out[0].equal(out[1]));
  EXPECT_FALSE(out[0].equal(x[0]));
}

TEST(HorizontalFlip, PEqualOneMirrorsEverySample) {
  const torch::Tensor x = images(5, 3, 4, 6);
  EXPECT_TRUE(
      train_batch(transform("horizontal_flip", {{"p", 1.0}}), x).equal(torch::flip(x, {3})));
  EXPECT_TRUE(train_batch(transform("horizontal_flip", {{"p", 0.0}}), x).equal(x));
}

TEST(HorizontalFlip, EachSampleIsEitherKeptOrMirrored) {
  const torch::Tensor x = images(64, 1, 3, 5);
  const torch::Tensor out = train_batch(transform("horizontal_flip"), x);
  const torch::Tensor flipped = torch::flip(x, {3});
  int64_t mirrored = 0;
  for (int64_t n = 0; n < x.size(0); ++n) {
    const bool is_mirrored = out[n].equal(flipped[n]);
    EXPECT_TRUE(is_mirrored || out[n].equal(x[n])) << n;
    mirrored += is_mirrored;
  }
  EXPECT_GT(mirrored, 0);
  EXPECT_LT(mirrored, x.size(0));
}

TEST(RandomCrop, AFullSizeCropWithoutPaddingIsTheIdentity) {
  const torch::Tensor x = images(3, 2, 5, 6);
  EXPECT_TRUE(train_batch(transform("random_crop"), x).equal(x));
  EXPECT_TRUE(
      train_batch(transform("random_crop", {{"size", std::vector<int64_t>{5, 6}}}), x).equal(x));
}

// The (top, left) of the first window of `padded` (C, H', W') equal to `crop` (C, h, w).
std::optional<std::pair<int64_t, int64_t>> window_of(const torch::Tensor& crop,
                                                     const torch::Tensor& padded) {
  const int64_t h = crop.size(1), w = crop.size(2);
  for (int64_t top = 0; top + h <= padded.size(1); ++top)
    for (int64_t left = 0; left + w <= padded.size(2); ++left)
      if (crop.equal(padded.slice(1, top, top + h).slice(2, left, left + w)))
        return std::pair{top, left};
  return std::nullopt;
}

TEST(RandomCrop, WithPaddingEachSampleIsAWindowOfThePaddedInput) {
  const int64_t padding = 2;
  const torch::Tensor x = images(8, 2, 5, 6);
  const torch::Tensor out = train_batch(transform("random_crop", {{"padding", padding}}), x);
  ASSERT_EQ(out.sizes(), x.sizes());
  const torch::Tensor padded = torch::constant_pad_nd(x, {padding, padding, padding, padding}, 0);
  std::set<std::pair<int64_t, int64_t>> places;
  for (int64_t n = 0; n < x.size(0); ++n) {
    const auto place = window_of(out[n], padded[n]);
    ASSERT_TRUE(place.has_value()) << "sample " << n << " is no window of its padded input";
    places.insert(*place);
  }
  EXPECT_GT(places.size(), 1u);  // one offset per sample, not one per batch
}

TEST(RandomCrop, TheSizeSetsTheOutputShape) {
  const torch::Tensor x = images(2, 3, 7, 8);
  const Augmentation square({transform("random_crop", {{"size", std::vector<int64_t>{4}}})});
  EXPECT_EQ(square.output_shape({3, 7, 8}), (std::vector<int64_t>{3, 4, 4}));
  EXPECT_EQ(square.apply(x, Split::train, 0, 0, 0).sizes(), (std::vector<int64_t>{2, 3, 4, 4}));
  const Augmentation oblong({transform("random_crop", {{"size", std::vector<int64_t>{3, 5}}})});
  EXPECT_EQ(oblong.output_shape({3, 7, 8}), (std::vector<int64_t>{3, 3, 5}));
}

TEST(RandomCrop, ACropLargerThanThePaddedImageIsAConfigError) {
  const Augmentation crop(
      {transform("random_crop", {{"size", std::vector<int64_t>{9}}, {"padding", int64_t{1}}})});
  const std::string error = config_error([&] { crop.output_shape({1, 5, 6}); });
  EXPECT_TRUE(Contains(error,
                       "dataset.augment[0].size = [9] is larger than the padded image "
                       "(7 x 8)"));
  EXPECT_TRUE(Contains(config_error([&] { crop.apply(images(1, 1, 5, 6), Split::train, 0, 0, 0); }),
                       "is larger than the padded image"));
}

}  // namespace
}  // namespace runner::augment
