// `runner check-op`: runs an op and the built-in computation it stands for on the same random
// inputs, compares outputs and gradients, gradchecks the op in float64 and times both.
#pragma once

#include <torch/torch.h>

#include <functional>
#include <string>
#include <vector>

#include "runner/gradcheck.hpp"
#include "runner/op.hpp"

namespace runner::opcheck {

// More timed calls than anyone waits for: a median of 100000 is as good as of more.
inline constexpr int kMaxRepeats = 100000;

struct CheckSettings {
  torch::ScalarType dtype = torch::kFloat;
  torch::Device device = torch::kCPU;
  // Shapes of the op's first input; empty: the op's check_shapes().
  std::vector<std::vector<int64_t>> shapes;
  int repeats = 5;  // timed calls of each; the median is reported
  uint64_t seed = 0;
  // Asked before each timed call: true ends the timing with the calls made so far.
  std::function<bool()> stop_requested = [] { return false; };
};

// The difference of one tensor from the reference's.
struct Difference {
  std::string what;  // "output", "grad input 0"
  double max_abs = 0;
  double max_rel = 0;  // max_abs over the reference's largest magnitude
  bool within = true;  // max_rel <= the op's tolerance
};

struct CaseResult {
  std::string label;  // input shapes, attributes, "non-contiguous"
  std::vector<Difference> differences;
  std::string failure;  // the op or its reference threw, or the shapes differ
  bool passed() const;
};

struct GradcheckCase {
  std::string label;
  GradcheckResult result;
};

// Median seconds of each call; reference times are 0 for an op without reference.
struct Timing {
  std::string label;
  double op_forward = 0, op_backward = 0;
  double reference_forward = 0, reference_backward = 0;
  int timed_calls = 0;  // of the op: fewer than asked when stopped
  std::string failure;  // the op or its reference threw while timed
};

struct CheckReport {
  std::string op;
  bool has_reference = false;
  double tolerance = 0;
  std::vector<CaseResult> cases;
  std::vector<GradcheckCase> gradchecks;
  std::vector<Timing> timings;
  bool passed() const;
};

CheckReport check_op(const std::string& name, const Op& op, const CheckSettings& settings);

}  // namespace runner::opcheck
