// The keys of each batch transform. `runner describe` prints these docs; what a schema cannot
// express (list lengths, a range's order) is checked in augment_checks.cpp.
#include "augment/schemas.hpp"

#include <map>

namespace runner::augment {
namespace {

struct TransformSpec {
  std::string description;
  Schema schema;
};

const std::vector<std::string> kInterpolations = {"nearest", "bilinear"};

Schema& add_resampling(Schema& s) {
  s.text("interpolation", "nearest", "How output pixels sample the input", kInterpolations);
  s.number("fill", 0.0, "Value of the pixels that come from outside the input");
  return s;
}

Schema random_affine() {
  Schema s;
  s.number("degrees", 0.0, "Rotation angle uniform in [-degrees, degrees]", 0);
  s.numbers("translate", std::vector<double>{0.0, 0.0},
            "[tx, ty]: shift uniform in [-tx*W, tx*W] and [-ty*H, ty*H] pixels", 0, 1);
  s.numbers("scale", std::vector<double>{1.0, 1.0},
            "[min, max]: zoom factor uniform in [min, max], each above 0", 0);
  s.number("shear", 0.0, "Shear angle along x uniform in [-shear, shear] degrees", 0);
  return add_resampling(s);
}

Schema random_rotation() {
  Schema s;
  s.number("degrees", std::nullopt, "Rotation angle uniform in [-degrees, degrees]", 0);
  return add_resampling(s);
}

Schema random_crop() {
  Schema s;
  s.integers("size", std::vector<int64_t>{},
             "[h, w] of the crop, or [s] for a square; []: the input's size", 1);
  s.integer("padding", 0, "Zero pixels added on every side before cropping", 0);
  return s;
}

Schema horizontal_flip() {
  return Schema().number("p", 0.5, "Probability that a sample is mirrored left to right", 0, 1);
}

Schema color_jitter() {
  Schema s;
  s.number("brightness", 0.0, "Brightness factor uniform in [max(0, 1-v), 1+v]", 0);
  s.number("contrast", 0.0, "Contrast factor uniform in [max(0, 1-v), 1+v]", 0);
  s.number("saturation", 0.0, "Saturation factor uniform in [max(0, 1-v), 1+v]; RGB only", 0);
  return s;
}

Schema normalize() {
  Schema s;
  s.numbers("mean", std::nullopt, "Subtracted: one value, or one per channel");
  s.numbers("std", std::nullopt, "Divided by: one value, or one per channel, each above 0", 0);
  return s;
}

const std::map<std::string, TransformSpec>& transforms() {
  static const std::map<std::string, TransformSpec> all = {
      {"random_affine",
       {"Rotates, shifts, zooms and shears each sample by a random amount", random_affine()}},
      {"random_rotation", {"Rotates each sample by a random angle", random_rotation()}},
      {"random_crop",
       {"Zero-pads, then cuts a window at a random place of each sample", random_crop()}},
      {"horizontal_flip", {"Mirrors samples left to right at random", horizontal_flip()}},
      {"color_jitter",
       {"Scales brightness, contrast and saturation by random factors, values kept in [0, 1]",
        color_jitter()}},
      {"normalize",
       {"Subtracts a mean and divides by a std per channel (train and test batches)", normalize()}},
  };
  return all;
}

}  // namespace

const std::vector<std::string>& transform_names() {
  static const std::vector<std::string> names = {"random_affine", "random_rotation",
                                                 "random_crop",   "horizontal_flip",
                                                 "color_jitter",  "normalize"};
  return names;
}

const Schema* transform_schema(const std::string& name) {
  auto it = transforms().find(name);
  return it == transforms().end() ? nullptr : &it->second.schema;
}

const std::string& transform_description(const std::string& name) {
  static const std::string none;
  auto it = transforms().find(name);
  return it == transforms().end() ? none : it->second.description;
}

}  // namespace runner::augment
