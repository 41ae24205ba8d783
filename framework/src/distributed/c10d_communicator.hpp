// runner::Communicator over a c10d process group (Gloo or NCCL). Every collective waits at
// most the run's timeout; a failure becomes a PeerFailure that names the rank at fault.
// What LibTorch 1.13's Gloo lacks is emulated: reduce-scatter as an all-to-all and a local
// sum, a flat all-gather into views of the output, bf16 reductions in fp32.
#pragma once

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/one_line.hpp"
#include "distributed/peer_failure.hpp"
#include "distributed/rank_health.hpp"
#include "distributed/wait_clock.hpp"
#include "runner/communicator.hpp"

namespace runner::distributed {

// What differs between the backends behind the same calls.
struct BackendTraits {
  std::string name;               // "gloo" or "nccl"
  bool flat_collectives = false;  // _allgather_base and _reduce_scatter_base
  bool reduces_bf16 = false;
  // Gloo's worker thread holds a finished work (and the tensors it was given) a moment after
  // wait() returns: waiting for it to let go keeps the buffers from outliving the collective.
  bool worker_holds_finished_work = false;
};

// Makes the group of `size` ranks, this one `rank` of them, whose rendezvous keys live in
// `store` (a prefix of the run's store).
using GroupMaker = std::function<std::shared_ptr<Communicator>(
    c10::intrusive_ptr<c10d::Store> store, int rank, int size)>;

// Group: c10d::ProcessGroupGloo or ProcessGroupNCCL, whose base class differs between
// LibTorch versions (ProcessGroup in 1.13, Backend in 2.x) while these calls do not.
template <typename Group>
class C10dCommunicator final : public Communicator {
 public:
  struct Setup {
    c10::intrusive_ptr<Group> group;
    std::shared_ptr<RankHealth> health;
    BackendTraits traits;
    int rank = 0, world_size = 1;
    std::chrono::milliseconds timeout{300000};
    c10::intrusive_ptr<c10d::Store> store;  // the one the group met in, for sub-groups
    std::shared_ptr<WaitClock> waits;       // where waits add their time; may be nullptr
    GroupMaker make_subgroup;
    std::function<void()> close;  // before the group goes (NCCL's shutdown, which 2.x wants)
  };

  explicit C10dCommunicator(Setup setup) : s_(std::move(setup)) {}
  ~C10dCommunicator() override {
    if (s_.close) s_.close();
  }
  C10dCommunicator(const C10dCommunicator&) = delete;
  C10dCommunicator& operator=(const C10dCommunicator&) = delete;

  int rank() const override { return s_.rank; }
  int world_size() const override { return s_.world_size; }
  std::string backend() const override { return s_.traits.name; }

  void broadcast(std::vector<torch::Tensor> tensors, int root) override {
    for (auto& tensor : tensors) {
      std::vector<torch::Tensor> one{on_wire(tensor)};
      c10d::BroadcastOptions options;
      options.rootRank = root;
      options.timeout = s_.timeout;
      wait_for("broadcast",
               guarded("broadcast", [&] { return s_.group->broadcast(one, options); }));
    }
  }

  void all_reduce_sum(std::vector<torch::Tensor> tensors) override {
    start_all_reduce_sum(std::move(tensors))->wait();
  }

  // One reduction per tensor: Gloo reduces a list only of equal sizes.
  std::unique_ptr<PendingCollective> start_all_reduce_sum(
      std::vector<torch::Tensor> tensors) override {
    auto pending = std::make_unique<Pending>(this, "all_reduce");
    for (auto& tensor : tensors) {
      torch::Tensor wire = reducible(tensor);
      std::vector<torch::Tensor> one{wire};
      c10d::AllreduceOptions options;
      options.timeout = s_.timeout;
      pending->works.push_back(
          guarded("all_reduce", [&] { return s_.group->allreduce(one, options); }));
      pending->then_copy(tensor, wire);
    }
    return pending;
  }

  void barrier() override {
    c10d::BarrierOptions options;
    options.timeout = s_.timeout;
    wait_for("barrier", guarded("barrier", [&] { return s_.group->barrier(options); }));
  }

  std::unique_ptr<PendingCollective> start_all_gather(torch::Tensor output,
                                                      torch::Tensor input) override {
    check_parts("all_gather", output, input);
    auto pending = std::make_unique<Pending>(this, "all_gather");
    torch::Tensor out = on_wire(output).view(-1), in = on_wire(input).view(-1);
    c10d::AllgatherOptions options;
    options.timeout = s_.timeout;
    if (s_.traits.flat_collectives) {
      pending->works.push_back(
          guarded("all_gather", [&] { return s_.group->_allgather_base(out, in, options); }));
    } else {
      std::vector<std::vector<torch::Tensor>> outputs{out.chunk(s_.world_size)};
      std::vector<torch::Tensor> inputs{in};
      pending->works.push_back(
          guarded("all_gather", [&] { return s_.group->allgather(outputs, inputs, options); }));
    }
    pending->keep = {output, input};
    return pending;
  }

  std::unique_ptr<PendingCollective> start_reduce_scatter_sum(torch::Tensor output,
                                                              torch::Tensor input) override {
    check_parts("reduce_scatter", output, input);
    auto pending = std::make_unique<Pending>(this, "reduce_scatter");
    torch::Tensor in = reducible(input).view(-1);
    if (s_.traits.flat_collectives) {
      torch::Tensor out = reducible(output).view(-1);
      c10d::ReduceScatterOptions options;
      options.timeout = s_.timeout;
      pending->works.push_back(guarded(
          "reduce_scatter", [&] { return s_.group->_reduce_scatter_base(out, in, options); }));
      pending->then_copy(output, out);
    } else {
      // Every rank's r-th part to rank r, then their sum here, in rank order.
      torch::Tensor parts = torch::empty_like(in);
      std::vector<int64_t> equal_splits;
      c10d::AllToAllOptions options;
      options.timeout = s_.timeout;
      pending->works.push_back(guarded("reduce_scatter", [&] {
        return s_.group->alltoall_base(parts, in, equal_splits, equal_splits, options);
      }));
      const int world = s_.world_size;
      pending->then = [output, parts, world]() mutable {
        output.view(-1).copy_(parts.view({world, -1}).sum(0));
      };
    }
    pending->keep = {output, input};
    return pending;
  }

  std::unique_ptr<PendingCollective> start_send(torch::Tensor tensor, int to) override {
    check_peer("send to", to);
    auto pending = std::make_unique<Pending>(this, "send");
    std::vector<torch::Tensor> one{on_wire(tensor)};
    pending->works.push_back(guarded("send", [&] { return s_.group->send(one, to, 0); }));
    pending->keep = {tensor};
    return pending;
  }

  std::unique_ptr<PendingCollective> start_receive(torch::Tensor tensor, int from) override {
    check_peer("receive from", from);
    auto pending = std::make_unique<Pending>(this, "receive");
    std::vector<torch::Tensor> one{on_wire(tensor)};
    pending->works.push_back(guarded("receive", [&] { return s_.group->recv(one, from, 0); }));
    pending->keep = {tensor};
    return pending;
  }

  std::shared_ptr<Communicator> subgroup(const std::vector<int>& ranks) override {
    check_subgroup(ranks);
    const std::string prefix = "subgroup/" + std::to_string(++subgroups_made_);
    for (size_t i = 0; i < ranks.size(); ++i)
      if (ranks[i] == s_.rank)
        return s_.make_subgroup(c10::make_intrusive<c10d::PrefixStore>(prefix, s_.store),
                                static_cast<int>(i), static_cast<int>(ranks.size()));
    return nullptr;
  }

 private:
  // Started works, waited for in order; `then` runs once they are all done.
  struct Pending final : PendingCollective {
    Pending(C10dCommunicator* owner, const char* what) : owner(owner), what(what) {}
    void wait() override {
      for (auto& work : works) owner->wait_for(what, work);
      works.clear();
      if (then) std::exchange(then, nullptr)();
    }
    // After the works: `wire`, a converted copy, back into `tensor`.
    void then_copy(torch::Tensor tensor, torch::Tensor wire) {
      if (tensor.is_same(wire)) return;
      auto before = std::move(then);
      then = [before = std::move(before), tensor = std::move(tensor),
              wire = std::move(wire)]() mutable {
        if (before) before();
        tensor.view(-1).copy_(wire.view(-1));
      };
    }
    C10dCommunicator* owner;
    const char* what;
    std::vector<c10::intrusive_ptr<c10d::Work>> works;
    std::function<void()> then;
    std::vector<torch::Tensor> keep;  // alive until the collective is done
  };

  // A tensor the backend can reduce: bf16 as an fp32 copy where it refuses bf16.
  torch::Tensor reducible(const torch::Tensor& tensor) const {
    if (tensor.scalar_type() == torch::kBFloat16 && !s_.traits.reduces_bf16)
      return tensor.to(torch::kFloat);
    return tensor;
  }

  // A tensor the backend can move unchanged: bf16's bits as fp16's where it knows no bf16.
  torch::Tensor on_wire(const torch::Tensor& tensor) const {
    if (tensor.scalar_type() == torch::kBFloat16 && !s_.traits.reduces_bf16)
      return tensor.view(torch::kHalf);
    return tensor;
  }

  void check_parts(const char* what, const torch::Tensor& output,
                   const torch::Tensor& input) const {
    const bool gather = std::string(what) == "all_gather";
    const torch::Tensor& whole = gather ? output : input;
    const torch::Tensor& part = gather ? input : output;
    if (whole.numel() != part.numel() * s_.world_size || !whole.is_contiguous() ||
        !part.is_contiguous() || whole.scalar_type() != part.scalar_type())
      throw std::invalid_argument(std::string(what) + ": the whole (" +
                                  std::to_string(whole.numel()) + " elements) must be " +
                                  std::to_string(s_.world_size) + " contiguous parts of " +
                                  std::to_string(part.numel()) + " of the same type");
  }

  void check_peer(const char* what, int peer) const {
    if (peer < 0 || peer >= s_.world_size || peer == s_.rank)
      throw std::invalid_argument(std::string(what) + " rank " + std::to_string(peer) +
                                  ": not another rank of this group of " +
                                  std::to_string(s_.world_size));
  }

  void check_subgroup(const std::vector<int>& ranks) const {
    std::vector<bool> seen(static_cast<size_t>(s_.world_size));
    for (int r : ranks) {
      if (r < 0 || r >= s_.world_size || seen[static_cast<size_t>(r)])
        throw std::invalid_argument("subgroup: rank " + std::to_string(r) +
                                    " is not a distinct rank of this group of " +
                                    std::to_string(s_.world_size));
      seen[static_cast<size_t>(r)] = true;
    }
    if (ranks.empty()) throw std::invalid_argument("subgroup: no ranks");
  }

  template <typename F>
  c10::intrusive_ptr<c10d::Work> guarded(const char* what, F&& start) {
    try {
      return start();
    } catch (const std::exception& e) {
      throw PeerFailure(s_.health->diagnose(what, one_line(e)));
    }
  }

  void wait_for(const char* what, const c10::intrusive_ptr<c10d::Work>& work) {
    const auto start = std::chrono::steady_clock::now();
    try {
      work->wait(s_.timeout);
      if (s_.traits.worker_holds_finished_work) wait_until_only_held_here(work);
    } catch (const std::exception& e) {
      throw PeerFailure(s_.health->diagnose(what, one_line(e)));
    }
    if (s_.waits) s_.waits->add(std::chrono::steady_clock::now() - start);
  }

  // Bounded: a worker descheduled for longer only frees the buffers later.
  static void wait_until_only_held_here(const c10::intrusive_ptr<c10d::Work>& work) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (work.use_count() > 1 && std::chrono::steady_clock::now() < give_up)
      std::this_thread::yield();
  }

  Setup s_;
  int subgroups_made_ = 0;
};

}  // namespace runner::distributed
