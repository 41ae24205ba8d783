// A model's activation op, looked up by name and checked to take one input.
#include "activation.hpp"

#include <runner/errors.hpp>

namespace model_support {

std::shared_ptr<const runner::Op> activation_op(const std::string& name,
                                                const runner::ModelContext& context) {
  RUNNER_CHECK(context.ops != nullptr, "the host gave the model no op library");
  std::shared_ptr<const runner::Op> op = context.ops->get(name);
  if (op->arity() != 1)
    throw runner::ConfigError("[model] activation = \"" + name + "\" takes " +
                                  std::to_string(op->arity()) + " inputs; an activation takes one",
                              "choose an op of one input, such as relu or torch_gelu_tanh");
  return op;
}

}  // namespace model_support
