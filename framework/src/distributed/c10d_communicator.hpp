// runner::Communicator over a c10d process group (Gloo or NCCL). Every collective waits at
// most the run's timeout; a failure becomes a PeerFailure that names the rank at fault.
#pragma once

#include <torch/csrc/distributed/c10d/Work.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "distributed/peer_failure.hpp"
#include "distributed/rank_health.hpp"
#include "common/one_line.hpp"
#include "runner/communicator.hpp"

namespace runner::distributed {

// Group: c10d::ProcessGroupGloo or ProcessGroupNCCL, whose base class differs between
// LibTorch versions (ProcessGroup in 1.13, Backend in 2.x) while these calls do not.
template <typename Group>
class C10dCommunicator final : public Communicator {
 public:
  // `close` runs before the group goes (NCCL's shutdown, which LibTorch 2.x wants called).
  C10dCommunicator(c10::intrusive_ptr<Group> group, std::shared_ptr<RankHealth> health,
                   std::string backend, int rank, int world_size,
                   std::chrono::milliseconds timeout, std::function<void()> close = {})
      : close_(std::move(close)),
        group_(std::move(group)),
        health_(std::move(health)),
        backend_(std::move(backend)),
        rank_(rank),
        world_size_(world_size),
        timeout_(timeout) {}
  ~C10dCommunicator() override {
    if (close_) close_();
  }
  C10dCommunicator(const C10dCommunicator&) = delete;
  C10dCommunicator& operator=(const C10dCommunicator&) = delete;

  int rank() const override { return rank_; }
  int world_size() const override { return world_size_; }
  std::string backend() const override { return backend_; }

  void broadcast(std::vector<torch::Tensor> tensors, int root) override {
    for (auto& tensor : tensors) {
      std::vector<torch::Tensor> one{tensor};
      c10d::BroadcastOptions options;
      options.rootRank = root;
      options.timeout = timeout_;
      wait_for("broadcast", guarded("broadcast", [&] { return group_->broadcast(one, options); }));
    }
  }

  void all_reduce_sum(std::vector<torch::Tensor> tensors) override {
    start_all_reduce_sum(std::move(tensors))->wait();
  }

  std::unique_ptr<PendingCollective> start_all_reduce_sum(
      std::vector<torch::Tensor> tensors) override {
    c10d::AllreduceOptions options;
    options.timeout = timeout_;
    auto work = guarded("all_reduce", [&] { return group_->allreduce(tensors, options); });
    return std::make_unique<Pending>(this, std::move(work), std::move(tensors));
  }

  void barrier() override {
    c10d::BarrierOptions options;
    options.timeout = timeout_;
    wait_for("barrier", guarded("barrier", [&] { return group_->barrier(options); }));
  }

 private:
  struct Pending final : PendingCollective {
    Pending(C10dCommunicator* owner, c10::intrusive_ptr<c10d::Work> work,
            std::vector<torch::Tensor> tensors)
        : owner(owner), work(std::move(work)), tensors(std::move(tensors)) {}
    void wait() override { owner->wait_for("all_reduce", work); }
    C10dCommunicator* owner;
    c10::intrusive_ptr<c10d::Work> work;
    std::vector<torch::Tensor> tensors;  // kept alive until the collective is done
  };

  template <typename F>
  c10::intrusive_ptr<c10d::Work> guarded(const char* what, F&& start) {
    try {
      return start();
    } catch (const std::exception& e) {
      throw PeerFailure(health_->diagnose(what, one_line(e)));
    }
  }

  void wait_for(const char* what, const c10::intrusive_ptr<c10d::Work>& work) {
    try {
      work->wait(timeout_);
    } catch (const std::exception& e) {
      throw PeerFailure(health_->diagnose(what, one_line(e)));
    }
  }

  std::function<void()> close_;
  c10::intrusive_ptr<Group> group_;
  std::shared_ptr<RankHealth> health_;
  std::string backend_;
  int rank_, world_size_;
  std::chrono::milliseconds timeout_;
};

}  // namespace runner::distributed
