// ZeRO's optimizer state and step offloaded to host memory (ZeRO-Offload's CPU offload of the
// optimizer): the optimizer steps fp32 copies of the master parts in pinned host memory, their
// gradients copied from the device before the step and the new values copied back after it,
// so the device keeps the master parts and their gradients but no optimizer state.
#pragma once

#include <torch/torch.h>
#include <runner/strategy.hpp>

#include <memory>
#include <vector>

namespace runner::strategies {

class HostOptimizer : public torch::optim::Optimizer {
 public:
  // `masters` on any device; their host copies are pinned when CUDA is present.
  HostOptimizer(const std::vector<torch::Tensor>& masters, const OptimizerFactory& make);

  torch::Tensor step(LossClosure closure = nullptr) override;

  // The host copies the inner optimizer steps (their state is its state).
  const torch::optim::Optimizer& on_host() const { return *host_optimizer_; }
  torch::optim::Optimizer& on_host() { return *host_optimizer_; }
  // The masters' values into the host copies: after a checkpoint was loaded into the masters.
  void masters_loaded();

 private:
  HostOptimizer(const std::vector<torch::Tensor>& masters, std::vector<torch::Tensor> host,
                const OptimizerFactory& make);

  std::vector<torch::Tensor> masters_;  // on the device
  std::vector<torch::Tensor> host_;     // fp32 copies in host memory, what is stepped
  std::unique_ptr<torch::optim::Optimizer> host_optimizer_;
};

}  // namespace runner::strategies
