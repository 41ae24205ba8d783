// Small ops whose right answers are formulas: x^2 with a correct, a wrong or no backward, and
// references that slip or refuse float64.
#pragma once

#include <torch/torch.h>
#include <runner/op.hpp>

namespace opcheck_test {

// y = x^2 with the backward given as a multiple of x: 2 is right, anything else wrong.
template <int kSlopeTimesX>
struct Square : public torch::autograd::Function<Square<kSlopeTimesX>> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x) {
    ctx->save_for_backward({x});
    return x * x;
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad) {
    return {grad[0] * kSlopeTimesX * ctx->get_saved_variables()[0]};
  }
};

template <int kSlopeTimesX>
class SquareOp : public runner::Op {
 public:
  torch::Tensor forward(const std::vector<torch::Tensor>& inputs,
                        const runner::OpAttributes& /*attributes*/) const override {
    return Square<kSlopeTimesX>::apply(inputs.at(0));
  }
  bool has_reference() const override { return true; }
  torch::Tensor reference(const std::vector<torch::Tensor>& inputs,
                          const runner::OpAttributes& /*attributes*/) const override {
    return inputs.at(0).pow(2);
  }
};

using RightSquare = SquareOp<2>;
using WrongBackwardSquare = SquareOp<3>;

// Forward off by 1e-3 relative: over the default float tolerance of 1e-5.
class WrongForwardSquare : public RightSquare {
 public:
  torch::Tensor forward(const std::vector<torch::Tensor>& inputs,
                        const runner::OpAttributes& attributes) const override {
    return RightSquare::forward(inputs, attributes) * 1.001;
  }
};

// Refuses non-contiguous inputs, as a careless kernel would mishandle them.
class ContiguousOnlySquare : public RightSquare {
 public:
  torch::Tensor forward(const std::vector<torch::Tensor>& inputs,
                        const runner::OpAttributes& attributes) const override {
    if (!inputs.at(0).is_contiguous()) throw std::runtime_error("needs a contiguous input");
    return RightSquare::forward(inputs, attributes);
  }
};

// Its reference slips in float32 alone, as a library's float32 kernel can: check-op runs the
// reference in float64, so the op is not blamed for it.
class Float32SlipReferenceSquare : public RightSquare {
 public:
  torch::Tensor reference(const std::vector<torch::Tensor>& inputs,
                          const runner::OpAttributes& attributes) const override {
    const torch::Tensor y = RightSquare::reference(inputs, attributes);
    return inputs.at(0).scalar_type() == torch::kFloat ? y * 1.5 : y;
  }
};

// Its reference takes float32 alone: check-op falls back to the case's own dtype.
class Float32OnlyReferenceSquare : public RightSquare {
 public:
  torch::Tensor reference(const std::vector<torch::Tensor>& inputs,
                          const runner::OpAttributes& attributes) const override {
    if (inputs.at(0).scalar_type() != torch::kFloat)
      throw std::runtime_error("the reference takes float32 alone");
    return RightSquare::reference(inputs, attributes);
  }
};

class NoReferenceSquare : public runner::Op {
 public:
  torch::Tensor forward(const std::vector<torch::Tensor>& inputs,
                        const runner::OpAttributes& /*attributes*/) const override {
    return inputs.at(0) * inputs.at(0);
  }
};

}  // namespace opcheck_test
