// next_token_cross_entropy: forward keeps the log-softmax of every position, backward makes
// from it the softmax minus the one-hot targets, scaled: two passes over (B, T, V).
#include "next_token_loss.hpp"

#include <runner/errors.hpp>

namespace gpt2 {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// At least float: bf16 and fp16 logits are normalised in float, as autocast does.
torch::ScalarType computed_type(torch::ScalarType logits) {
  return logits == torch::kDouble ? torch::kDouble : torch::kFloat;
}

class NextTokenCrossEntropy : public torch::autograd::Function<NextTokenCrossEntropy> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& logits,
                               const torch::Tensor& tokens) {
    // All T positions: log-softmax over the slice 0..T-2 would first copy it whole.
    torch::Tensor log_probabilities =
        torch::log_softmax(logits, -1, computed_type(logits.scalar_type()));   // (B, T, V)
    torch::Tensor next = tokens.slice(1, 1).unsqueeze(2);                      // (B, T-1, 1)
    torch::Tensor picked = log_probabilities.slice(1, 0, -1).gather(2, next);  // (B, T-1, 1)
    ctx->save_for_backward({log_probabilities, next});
    ctx->saved_data["type"] = static_cast<int64_t>(logits.scalar_type());
    return -picked.mean();
  }

  // The log-probabilities and the gradient beside them: the two (B, T, V) tensors a plan
  // counts for a loss, and the saved tensor left as it was for a retained graph.
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list saved = ctx->get_saved_variables();
    const torch::Tensor& next = saved[1];
    torch::Tensor softmax = saved[0].exp();  // (B, T, V)
    torch::Tensor rows = softmax.slice(1, 0, -1);
    rows.scatter_(2, next, rows.gather(2, next) - 1);
    softmax.select(1, softmax.size(1) - 1).zero_();  // the last position predicts nothing
    const torch::Tensor scale = grads[0] / next.numel();
    const auto type = static_cast<torch::ScalarType>(ctx->saved_data["type"].toInt());
    if (type == softmax.scalar_type()) return {softmax.mul_(scale), torch::Tensor()};
    torch::Tensor grad = torch::empty(softmax.sizes(), softmax.options().dtype(type));
    torch::mul_out(grad, softmax, scale);  // scaled and cast in one pass
    return {grad, torch::Tensor()};
  }
};

}  // namespace

torch::Tensor next_token_cross_entropy(const torch::Tensor& logits, const torch::Tensor& tokens) {
  RUNNER_CHECK(logits.dim() == 3 && tokens.dim() == 2 && logits.size(0) == tokens.size(0) &&
                   logits.size(1) == tokens.size(1) && tokens.size(1) >= 2,
               "gpt2's loss needs (B, T, V) logits and (B, T) tokens with T >= 2");
  return NextTokenCrossEntropy::apply(logits, tokens);
}

}  // namespace gpt2
