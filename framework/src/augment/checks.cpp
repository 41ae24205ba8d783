// The problems of each batch transform's options that its schema cannot catch, by transform.
#include "augment/checks.hpp"

#include <algorithm>

namespace runner::augment {
namespace {

using Problem = std::optional<TransformProblem>;

Problem pair_problem(const Options& options, const std::string& key, const std::string& form) {
  const std::vector<double> values = options.get_doubles(key);
  if (values.size() == 2) return std::nullopt;
  return TransformProblem{key, "must hold two values " + form + ", not " + value_to_string(values),
                          "write " + key + " = " + form};
}

Problem affine_problem(const Options& options) {
  if (Problem p = pair_problem(options, "translate", "[tx, ty]")) return p;
  if (Problem p = pair_problem(options, "scale", "[min, max]")) return p;
  const std::vector<double> scale = options.get_doubles("scale");
  if (!(scale[0] > 0 && scale[1] > 0))
    return TransformProblem{"scale", "must be above 0, not " + value_to_string(scale),
                            "a zoom factor of 0 leaves no image; e.g. scale = [0.8, 1.2]"};
  if (scale[0] > scale[1])
    return TransformProblem{"scale",
                            "must be [min, max] with min <= max, not " + value_to_string(scale),
                            "swap the two values"};
  return std::nullopt;
}

Problem crop_problem(const Options& options) {
  const std::vector<int64_t> size = options.get_ints("size");
  if (size.size() <= 2) return std::nullopt;
  return TransformProblem{"size",
                          "must hold at most two values [h, w], not " + value_to_string(size),
                          "write size = [h, w], size = [s] for a square, or size = [] for the "
                          "input's size"};
}

Problem normalize_problem(const Options& options) {
  for (const std::string key : {"mean", "std"})
    if (options.get_doubles(key).empty())
      return TransformProblem{key, "must hold one value, or one per channel, not []",
                              "e.g. " + key + " = [0.5]"};
  const std::vector<double> deviations = options.get_doubles("std");
  if (std::all_of(deviations.begin(), deviations.end(), [](double v) { return v > 0; }))
    return std::nullopt;
  return TransformProblem{"std", "must be above 0, not " + value_to_string(deviations),
                          "a std of 0 would divide by 0"};
}

}  // namespace

std::optional<TransformProblem> transform_problem(const std::string& name, const Options& options) {
  if (name == "random_affine") return affine_problem(options);
  if (name == "random_crop") return crop_problem(options);
  if (name == "normalize") return normalize_problem(options);
  return std::nullopt;
}

}  // namespace runner::augment
