// A model's activation: an op of the host's library, chosen by name ([model] activation), and
// that op as a module so it can sit in a torch::nn::Sequential.
#pragma once

#include <torch/torch.h>
#include <runner/model.hpp>
#include <runner/op.hpp>

#include <memory>
#include <string>
#include <utility>

namespace model_support {

// The op `name` of the context's library; a ConfigError when it takes more than one input.
// The library throws one when it has no op of that name.
std::shared_ptr<const runner::Op> activation_op(const std::string& name,
                                                const runner::ModelContext& context);

// An activation op as a module, so it can sit in a torch::nn::Sequential. It holds the op,
// and so the op's library.
class ActivationImpl : public torch::nn::Module {
 public:
  explicit ActivationImpl(std::shared_ptr<const runner::Op> op) : op_(std::move(op)) {}
  torch::Tensor forward(const torch::Tensor& x) { return (*op_)(x); }

 private:
  std::shared_ptr<const runner::Op> op_;
};
TORCH_MODULE(Activation);

}  // namespace model_support
