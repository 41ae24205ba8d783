// Collectives among the ranks of one run. The host makes the communicator (c10d: Gloo or NCCL
// over a TCP store) before the strategy's setup; one rank alone gets one whose collectives do
// nothing. Every collective has the run's timeout, and a failure throws RunError naming the
// rank at fault when it can be found ("rank 1 stopped: killed by signal 9").
#pragma once

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

namespace runner {

// A collective started without waiting: wait() blocks until it is done (or throws).
class PendingCollective {
 public:
  virtual ~PendingCollective() = default;
  virtual void wait() = 0;
};

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  virtual std::string backend() const = 0;  // "gloo", "nccl", or "none" for one rank

  // In place on every rank. Tensors are contiguous, on the run's device; Gloo takes CPU and
  // CUDA tensors, NCCL CUDA tensors only.
  virtual void broadcast(std::vector<torch::Tensor> tensors, int root) = 0;
  virtual void all_reduce_sum(std::vector<torch::Tensor> tensors) = 0;
  virtual std::unique_ptr<PendingCollective> start_all_reduce_sum(
      std::vector<torch::Tensor> tensors) = 0;
  virtual void barrier() = 0;
};

// One rank: nothing to exchange.
class SingleRankCommunicator final : public Communicator {
 public:
  int rank() const override { return 0; }
  int world_size() const override { return 1; }
  std::string backend() const override { return "none"; }
  void broadcast(std::vector<torch::Tensor>, int) override {}
  void all_reduce_sum(std::vector<torch::Tensor>) override {}
  std::unique_ptr<PendingCollective> start_all_reduce_sum(std::vector<torch::Tensor>) override {
    struct Done final : PendingCollective {
      void wait() override {}
    };
    return std::make_unique<Done>();
  }
  void barrier() override {}
};

}  // namespace runner
