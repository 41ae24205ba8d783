// AdamW's update in one pass per parameter: decay, both moments, the bias-corrected step.
#include "train/fused_adamw.hpp"

#include <cmath>
#include <runner/compat.hpp>

#include "train/adamw_update.hpp"

namespace runner::train {
namespace {

using torch::optim::AdamWOptions;
using torch::optim::AdamWParamState;

AdamWCoefficients coefficients(const AdamWOptions& options, int64_t step) {
  const auto [beta1, beta2] = options.betas();
  const double bias_correction1 = 1 - std::pow(beta1, step);
  const double bias_correction2 = 1 - std::pow(beta2, step);
  return {static_cast<float>(1 - options.lr() * options.weight_decay()),
          static_cast<float>(beta1),
          static_cast<float>(1 - beta1),
          static_cast<float>(beta2),
          static_cast<float>(1 - beta2),
          static_cast<float>(std::sqrt(bias_correction2)),
          static_cast<float>(options.eps()),
          static_cast<float>(-options.lr() / bias_correction1)};
}

// The writes went through raw pointers: a graph that saved one of these tensors must still
// see that it changed, as after LibTorch's in-place operations.
void mark_written(const torch::Tensor& t) { t.unsafeGetTensorImpl()->bump_version(); }

bool fusable_tensor(const torch::Tensor& t) {
  return t.defined() && t.device().is_cpu() && t.scalar_type() == torch::kFloat &&
         t.layout() == torch::kStrided && t.is_contiguous();
}

}  // namespace

bool FusedAdamW::fuses_next_step() const {
  for (const auto& group : param_groups_) {
    if (static_cast<const AdamWOptions&>(group.options()).amsgrad()) return false;
    for (const auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      if (!fusable_tensor(p) || !fusable_tensor(p.grad())) return false;
      const auto found = state_.find(compat::optimizer_state_key(p));
      if (found == state_.end()) continue;
      const auto& state = static_cast<const AdamWParamState&>(*found->second);
      if (!fusable_tensor(state.exp_avg()) || !fusable_tensor(state.exp_avg_sq())) return false;
    }
  }
  return true;
}

void FusedAdamW::step_fused() {
  for (auto& group : param_groups_) {
    const auto& options = static_cast<const AdamWOptions&>(group.options());
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& slot = state_[compat::optimizer_state_key(p)];
      if (!slot) {
        auto made = std::make_unique<AdamWParamState>();
        made->step(0);
        made->exp_avg(torch::zeros_like(p, torch::MemoryFormat::Preserve));
        made->exp_avg_sq(torch::zeros_like(p, torch::MemoryFormat::Preserve));
        slot = std::move(made);
      }
      auto& state = static_cast<AdamWParamState&>(*slot);
      state.step(state.step() + 1);
      adamw_update(p.data_ptr<float>(), p.grad().data_ptr<float>(),
                   state.exp_avg().data_ptr<float>(), state.exp_avg_sq().data_ptr<float>(),
                   p.numel(), coefficients(options, state.step()));
      for (const auto& written : {p, state.exp_avg(), state.exp_avg_sq()}) mark_written(written);
    }
  }
}

torch::Tensor FusedAdamW::step(LossClosure closure) {
  torch::Tensor loss;
  if (closure) {
    at::AutoGradMode enable_grad(true);
    loss = closure();
  }
  if (!fuses_next_step()) {
    torch::optim::AdamW::step();
    return loss;
  }
  torch::NoGradGuard no_grad;
  step_fused();
  return loss;
}

}  // namespace runner::train
