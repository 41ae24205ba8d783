// Layers the image models share that ops can replace: a conv followed by its activation,
// which `fused = true` turns into the op "fused_conv_relu", and a 2x2 pool, builtin or an op.
#pragma once

#include <torch/nn/modules/conv.h>
#include <runner/model.hpp>
#include <runner/op.hpp>

#include <memory>
#include <string>

namespace model_support {

// The op "fused_conv_relu" when `fused`, else nullptr. A ConfigError naming `model` when fused
// with another activation than relu, or when the op does not take (input, weight, bias).
std::shared_ptr<const runner::Op> fused_conv_op(const std::string& model, bool fused,
                                                const std::string& activation,
                                                const runner::ModelContext& context);

// A square conv of stride 1, then the activation op; or, with a fused op, that op on the
// conv's input, weight and bias, the padding passed as an attribute. Same parameters either way.
struct ConvShape {
  int64_t in_channels = 0, out_channels = 0, kernel = 0, padding = 0;
};

class ConvActivationImpl : public torch::nn::Module {
 public:
  ConvActivationImpl(const ConvShape& shape, std::shared_ptr<const runner::Op> activation,
                     std::shared_ptr<const runner::Op> fused);
  // (N, C, H, W) -> (N, out_channels, H', W')
  torch::Tensor forward(const torch::Tensor& x);

  torch::nn::Conv2d conv{nullptr};

 private:
  std::shared_ptr<const runner::Op> activation_;
  std::shared_ptr<const runner::Op> fused_;
  runner::OpAttributes attributes_;
};
TORCH_MODULE(ConvActivation);

// 2x2 max or average pooling with stride 2: "max" and "avg" are LibTorch's, any other name an
// op of one input from the library (e.g. "max_pool2d"), given kernel_size and stride 2.
class Pool2x2 {
 public:
  Pool2x2(const std::string& model, const std::string& name, const runner::ModelContext& context);
  // (N, C, H, W) -> (N, C, H / 2, W / 2)
  torch::Tensor operator()(const torch::Tensor& x) const;

 private:
  std::string name_;
  std::shared_ptr<const runner::Op> op_;
};

}  // namespace model_support
