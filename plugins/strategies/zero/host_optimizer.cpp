// HostOptimizer: pinned host copies of the master parts, stepped between batched copies each way.
#include "host_optimizer.hpp"

namespace runner::strategies {
namespace {

std::vector<torch::Tensor> host_copies(const std::vector<torch::Tensor>& masters) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> host;
  for (const auto& m : masters) {
    torch::Tensor copy = torch::empty(m.sizes(), m.options().device(torch::kCPU));
    if (torch::cuda::is_available()) copy = copy.pin_memory();
    copy.copy_(m);
    copy.mutable_grad() = torch::zeros_like(copy);
    host.push_back(copy.requires_grad_(true));
  }
  return host;
}

}  // namespace

HostOptimizer::HostOptimizer(const std::vector<torch::Tensor>& masters,
                             const OptimizerFactory& make)
    : HostOptimizer(masters, host_copies(masters), make) {}

HostOptimizer::HostOptimizer(const std::vector<torch::Tensor>& masters,
                             std::vector<torch::Tensor> host, const OptimizerFactory& make)
    : torch::optim::Optimizer({torch::optim::OptimizerParamGroup(masters)},
                              make(host)->defaults().clone()),
      masters_(masters),
      host_(std::move(host)),
      host_optimizer_(make(host_)) {}

// The gradients' copies to the host are started together and waited for once; so are the new
// values' copies back.
torch::Tensor HostOptimizer::step(LossClosure closure) {
  torch::Tensor loss;
  if (closure) {
    torch::AutoGradMode grad(true);
    loss = closure();
  }
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < masters_.size(); ++i) {
    const torch::Tensor& grad = masters_[i].grad();
    if (grad.defined())
      host_[i].mutable_grad().copy_(grad, /*non_blocking=*/true);
    else
      host_[i].mutable_grad().zero_();
  }
  if (torch::cuda::is_available()) torch::cuda::synchronize();
  host_optimizer_->param_groups()[0].options().set_lr(param_groups()[0].options().get_lr());
  host_optimizer_->step();
  for (size_t i = 0; i < masters_.size(); ++i) masters_[i].detach().copy_(host_[i], true);
  if (torch::cuda::is_available()) torch::cuda::synchronize();
  return loss;
}

void HostOptimizer::masters_loaded() {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < masters_.size(); ++i) host_[i].copy_(masters_[i]);
}

}  // namespace runner::strategies
