// LossScaler: unscaling gradients with the overflow check, growing or halving the scale, its state.
#include "runner/strategies/loss_scaler.hpp"

namespace runner::strategies {

LossScaler::LossScaler(LossScaling settings)
    : settings_(settings), scale_(settings.initial_scale) {}

bool LossScaler::unscale(const std::vector<torch::Tensor>& parameters,
                         const SumOverShards& sum) const {
  torch::NoGradGuard no_grad;
  torch::Tensor bad;  // count of non-finite gradient tensors, on the gradients' device
  for (const auto& p : parameters) {
    const torch::Tensor& g = p.grad();
    if (!g.defined()) continue;
    g.mul_(1.0 / scale_);
    torch::Tensor not_finite = g.isfinite().all().logical_not().to(torch::kFloat);
    bad = bad.defined() ? bad + not_finite : not_finite;
  }
  if (!bad.defined()) return true;
  if (sum) sum(bad);
  return bad.item<float>() == 0.0f;
}

void LossScaler::update(bool finite) {
  if (!finite) {
    scale_ *= settings_.backoff;
    good_steps_ = 0;
    return;
  }
  if (++good_steps_ < settings_.growth_interval) return;
  scale_ *= settings_.growth;
  good_steps_ = 0;
}

void LossScaler::add_state_to(ScalarPieces& pieces) {
  pieces.add("loss_scaler/scale", &scale_);
  pieces.add("loss_scaler/good_steps", &good_steps_);
}

}  // namespace runner::strategies
