// Collectives among the ranks of one run. The host makes the communicator (c10d: Gloo or NCCL
// over a TCP store) before the strategy's setup; one rank alone gets one whose collectives do
// nothing. Every collective has the run's timeout, and a failure throws RunError naming the
// rank at fault when it can be found ("rank 1 stopped: killed by signal 9").
#pragma once

#include <torch/types.h>

#include <memory>
#include <stdexcept>
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
  virtual int rank() const = 0;             // in this group
  virtual int world_size() const = 0;       // of this group
  virtual std::string backend() const = 0;  // "gloo", "nccl", or "none" for one rank

  // What this thread's next call on the communicator is for, in the caller's words ("ddp
  // bucket 3 of 7", "zero-3 gathers layer 12"): the rank's ledger keeps them beside the call's
  // collectives, and an error or hang report names them. The call after has none; the words are
  // cut to 63 characters.
  virtual void describe_next(const std::string& words) { (void)words; }

  // In place on every rank. Tensors are contiguous, on the run's device; Gloo takes CPU and
  // CUDA tensors, NCCL CUDA tensors only. bf16 is reduced in fp32 where the backend refuses it.
  virtual void broadcast(std::vector<torch::Tensor> tensors, int root) = 0;
  virtual void all_reduce_sum(std::vector<torch::Tensor> tensors) = 0;
  virtual std::unique_ptr<PendingCollective> start_all_reduce_sum(
      std::vector<torch::Tensor> tensors) = 0;
  virtual void barrier() = 0;

  // Every rank's `input` joined in rank order into `output`, a flat tensor of world_size() x
  // input's elements: rank r's at [r * n, (r + 1) * n).
  virtual std::unique_ptr<PendingCollective> start_all_gather(torch::Tensor output,
                                                              torch::Tensor input) = 0;
  // `input`, a flat tensor of world_size() x output's elements, summed over the ranks; rank r
  // receives the r-th part of the sum in `output`. `output` may be that part of `input`.
  virtual std::unique_ptr<PendingCollective> start_reduce_scatter_sum(torch::Tensor output,
                                                                      torch::Tensor input) = 0;
  // Point to point: the receiver's tensor has the sender's shape and type. Between two ranks,
  // messages arrive in the order they were sent.
  virtual std::unique_ptr<PendingCollective> start_send(torch::Tensor tensor, int to) = 0;
  virtual std::unique_ptr<PendingCollective> start_receive(torch::Tensor tensor, int from) = 0;

  // A group of some of the ranks, as torch.distributed.new_group: every rank calls with the
  // same `ranks` (this group's rank numbers, distinct), in the same order of calls; rank i of
  // the new group is ranks[i]. A rank that is not a member gets nullptr.
  virtual std::shared_ptr<Communicator> subgroup(const std::vector<int>& ranks) = 0;

  void all_gather(torch::Tensor output, torch::Tensor input) {
    start_all_gather(std::move(output), std::move(input))->wait();
  }
  void reduce_scatter_sum(torch::Tensor output, torch::Tensor input) {
    start_reduce_scatter_sum(std::move(output), std::move(input))->wait();
  }
  void send(torch::Tensor tensor, int to) { start_send(std::move(tensor), to)->wait(); }
  void receive(torch::Tensor tensor, int from) { start_receive(std::move(tensor), from)->wait(); }
};

// A collective that finished when it started.
class DoneCollective final : public PendingCollective {
 public:
  void wait() override {}
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
    return std::make_unique<DoneCollective>();
  }
  void barrier() override {}
  std::unique_ptr<PendingCollective> start_all_gather(torch::Tensor output,
                                                      torch::Tensor input) override {
    return copied(output, input);
  }
  std::unique_ptr<PendingCollective> start_reduce_scatter_sum(torch::Tensor output,
                                                              torch::Tensor input) override {
    return copied(output, input);
  }
  std::unique_ptr<PendingCollective> start_send(torch::Tensor, int to) override {
    throw std::invalid_argument("send to rank " + std::to_string(to) + " of a one-rank group");
  }
  std::unique_ptr<PendingCollective> start_receive(torch::Tensor, int from) override {
    throw std::invalid_argument("receive from rank " + std::to_string(from) +
                                " of a one-rank group");
  }
  std::shared_ptr<Communicator> subgroup(const std::vector<int>& ranks) override {
    if (ranks.size() != 1 || ranks[0] != 0)
      throw std::invalid_argument("a one-rank group has only rank 0");
    return std::make_shared<SingleRankCommunicator>();
  }

 private:
  static std::unique_ptr<PendingCollective> copied(torch::Tensor& output,
                                                   const torch::Tensor& input) {
    if (!output.is_same(input)) output.view(-1).copy_(input.view(-1));
    return std::make_unique<DoneCollective>();
  }
};

}  // namespace runner
