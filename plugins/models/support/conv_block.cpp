// ConvActivation, plain or the fused_conv_relu op, and Pool2x2, torch's max-pool or the op.
#include "conv_block.hpp"

#include <runner/errors.hpp>

namespace model_support {
namespace {

constexpr const char* kFusedOp = "fused_conv_relu";

runner::OpAttributes pool_attributes() {
  return runner::OpAttributes().set("kernel_size", {2, 2}).set("stride", {2, 2});
}

}  // namespace

std::shared_ptr<const runner::Op> fused_conv_op(const std::string& model, bool fused,
                                                const std::string& activation,
                                                const runner::ModelContext& context) {
  if (!fused) return nullptr;
  if (activation != "relu")
    throw runner::ConfigError("[model] " + model + ": fused = true fuses each conv with relu, " +
                                  "but activation = \"" + activation + "\"",
                              "set activation = \"relu\", or fused = false");
  RUNNER_CHECK(context.ops != nullptr, "the host gave the model no op library");
  std::shared_ptr<const runner::Op> op = context.ops->get(kFusedOp);
  if (op->arity() != 3)
    throw runner::ConfigError(std::string("[model] fused = true needs the op ") + kFusedOp +
                                  " of (input, weight, bias); this one takes " +
                                  std::to_string(op->arity()) + " inputs",
                              "install the fused_conv_relu op plugin");
  return op;
}

ConvActivationImpl::ConvActivationImpl(const ConvShape& shape,
                                       std::shared_ptr<const runner::Op> activation,
                                       std::shared_ptr<const runner::Op> fused)
    : activation_(std::move(activation)),
      fused_(std::move(fused)),
      attributes_(runner::OpAttributes()
                      .set("stride", {1, 1})
                      .set("padding", {shape.padding, shape.padding})) {
  conv = register_module(
      "conv", torch::nn::Conv2d(
                  torch::nn::Conv2dOptions(shape.in_channels, shape.out_channels, shape.kernel)
                      .padding(shape.padding)));
}

torch::Tensor ConvActivationImpl::forward(const torch::Tensor& x) {
  if (fused_) return fused_->forward({x, conv->weight, conv->bias}, attributes_);
  return (*activation_)(conv->forward(x));
}

Pool2x2::Pool2x2(const std::string& model, const std::string& name,
                 const runner::ModelContext& context)
    : name_(name) {
  if (name == "max" || name == "avg") return;
  RUNNER_CHECK(context.ops != nullptr, "the host gave the model no op library");
  op_ = context.ops->get(name);
  if (op_->arity() != 1)
    throw runner::ConfigError("[model] " + model + ": pool = \"" + name + "\" takes " +
                                  std::to_string(op_->arity()) + " inputs; a pool takes one",
                              "use max, avg or a pooling op such as max_pool2d");
}

torch::Tensor Pool2x2::operator()(const torch::Tensor& x) const {
  static const runner::OpAttributes attributes = pool_attributes();
  if (op_) return op_->forward({x}, attributes);
  return name_ == "max" ? torch::max_pool2d(x, 2) : torch::avg_pool2d(x, 2);
}

}  // namespace model_support
