// An op: a named function (an activation, a fused layer) that a model asks for by name,
// so that an op plugin changes a model without touching its code.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

namespace runner {

class Op {
 public:
  virtual ~Op() = default;
  // Number of tensors forward() takes: 1 for an activation.
  virtual int arity() const { return 1; }
  virtual torch::Tensor forward(const std::vector<torch::Tensor>& inputs) const = 0;

  torch::Tensor operator()(const torch::Tensor& x) const { return forward({x}); }
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
