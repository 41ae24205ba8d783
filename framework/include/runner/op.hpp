// An op: a named function (an activation, a fused layer) that a model asks for by name,
// so that an op plugin changes a model without touching its code. An op may also say what
// built-in computation it stands for, so `runner check-op` can compare the two.
#pragma once

#include <torch/types.h>

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace runner {

// Per-call settings of an op, each a list of integers: a convolution's stride and padding,
// a pool's kernel size. Configuration that holds for every call belongs in the op's options.
class OpAttributes {
 public:
  OpAttributes& set(const std::string& name, std::vector<int64_t> values) {
    values_[name] = std::move(values);
    return *this;
  }
  // The values of `name`, or `fallback` when the caller did not set it.
  std::vector<int64_t> get(const std::string& name, std::vector<int64_t> fallback) const {
    auto it = values_.find(name);
    if (it == values_.end()) return fallback;
    return it->second;
  }
  const std::map<std::string, std::vector<int64_t>>& values() const { return values_; }

  // "padding=1,1 stride=2,2"; empty without attributes.
  std::string text() const {
    std::string out;
    for (const auto& [name, values] : values_) {
      out += (out.empty() ? "" : " ") + name + "=";
      for (size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + std::to_string(values[i]);
    }
    return out;
  }

 private:
  std::map<std::string, std::vector<int64_t>> values_;
};

// One set of inputs that `runner check-op` runs an op and its reference on. Every defined
// floating-point input is differentiated; an undefined one is an absent optional input
// (a convolution without bias).
struct OpCase {
  std::vector<torch::Tensor> inputs;
  OpAttributes attributes;
};

class Op {
 public:
  virtual ~Op() = default;
  // Number of tensors forward() takes: 1 for an activation.
  virtual int arity() const { return 1; }
  virtual torch::Tensor forward(const std::vector<torch::Tensor>& inputs,
                                const OpAttributes& attributes) const = 0;

  torch::Tensor operator()(const torch::Tensor& x) const { return forward({x}, {}); }

  // The built-in computation the op stands for (at::gelu, conv2d then relu), on the same
  // inputs and attributes. check-op runs it on float64 copies of the floating-point inputs
  // (in their own dtype if it throws there). An op without one is only gradchecked and timed.
  virtual bool has_reference() const { return false; }
  virtual torch::Tensor reference(const std::vector<torch::Tensor>& /*inputs*/,
                                  const OpAttributes& /*attributes*/) const {
    throw std::logic_error("this op has no reference");
  }

  // Shapes of the first input that check-op tries when the user names none: odd sizes and
  // a batch of 1 among them.
  virtual std::vector<std::vector<int64_t>> check_shapes() const {
    return {{1, 1}, {3, 7}, {2, 5, 9}, {1, 3, 17, 33}};
  }
  // The cases check-op runs for one shape of the first input; `options` holds the dtype and
  // device. By default, one standard-normal tensor of that shape.
  virtual std::vector<OpCase> check_cases(const std::vector<int64_t>& shape,
                                          const torch::TensorOptions& options) const {
    return {OpCase{{torch::randn(shape, options)}, {}}};
  }
  // Largest relative error check-op accepts in `dtype`, for the output and each gradient:
  // the largest absolute difference from the reference over the reference's largest
  // magnitude.
  virtual double tolerance(torch::ScalarType dtype) const {
    return dtype == torch::kDouble ? 1e-12 : 1e-5;
  }
};

// While alive, cuDNN computes float32 convolutions in float32 proper. By default it may use
// TF32 (10-bit mantissas) on Ampere and later GPUs (on an H100, a 32x64x56x56 grad_weight came
// out 7e-4 off, against 5e-5 without), and a reference built on conv2d would then be no float32
// reference: check-op and the op tests hold one while they compare. The previous setting comes
// back at the end.
class ExactFloat32Scope {
 public:
  ExactFloat32Scope() : previous_(at::globalContext().allowTF32CuDNN()) {
    at::globalContext().setAllowTF32CuDNN(false);
  }
  ~ExactFloat32Scope() { at::globalContext().setAllowTF32CuDNN(previous_); }
  ExactFloat32Scope(const ExactFloat32Scope&) = delete;
  ExactFloat32Scope& operator=(const ExactFloat32Scope&) = delete;

 private:
  bool previous_;
};

// The ops of the installed plugins, configured from the experiment's [ops.NAME] tables.
class OpLibrary {
 public:
  virtual ~OpLibrary() = default;
  // Throws a ConfigError listing the known ops when there is none of that name.
  virtual std::shared_ptr<const Op> get(const std::string& name) const = 0;
  virtual std::vector<std::string> names() const = 0;
};

}  // namespace runner
