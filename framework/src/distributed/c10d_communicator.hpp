// runner::Communicator over a c10d process group (Gloo or NCCL). Every collective waits at
// most the run's timeout and is recorded in the rank's ledger; a failure becomes a PeerFailure
// that names the collective and the rank at fault.
// What LibTorch 1.13's Gloo lacks is emulated: reduce-scatter as an all-to-all and a local
// sum, a flat all-gather into views of the output, bf16 reductions in fp32.
#pragma once

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/one_line.hpp"
#include "distributed/call_check.hpp"
#include "distributed/collective_ledger.hpp"
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

// A group as every member names it: this rank's place in it, and its members as ranks of the
// run, in the group's order.
struct GroupPlace {
  std::string name = "world";  // sub-groups: "world/2", the second made from the world, ...
  int rank = 0;
  std::vector<int> run_ranks;
  int size() const { return static_cast<int>(run_ranks.size()); }
};

// The run's ranks 0 .. world_size - 1, this one `rank` of them.
inline GroupPlace world_place(int rank, int world_size) {
  GroupPlace place;
  place.rank = rank;
  for (int r = 0; r < world_size; ++r) place.run_ranks.push_back(r);
  return place;
}

// Makes the group at `place`, whose rendezvous keys live in `store` (a prefix of the run's
// store).
using GroupMaker = std::function<std::shared_ptr<Communicator>(
    c10::intrusive_ptr<c10d::Store> store, const GroupPlace& place)>;

// Group: c10d::ProcessGroupGloo or ProcessGroupNCCL, whose base class differs between
// LibTorch versions (ProcessGroup in 1.13, Backend in 2.x) while these calls do not.
template <typename Group>
class C10dCommunicator final : public Communicator {
 public:
  struct Setup {
    c10::intrusive_ptr<Group> group;
    std::shared_ptr<RankHealth> health;
    BackendTraits traits;
    GroupPlace place;
    std::chrono::milliseconds timeout{300000};
    c10::intrusive_ptr<c10d::Store> store;  // the one the group met in, for sub-groups
    std::shared_ptr<WaitClock> waits;       // where waits add their time; may be nullptr
    // NCCL: times a wait on the device's current stream, which wait() only orders after the
    // collective (the host does not block there). Empty: the host's time in wait().
    std::function<std::unique_ptr<StreamStall>(torch::Device)> stream_stall;
    std::shared_ptr<CollectiveLedger> ledger;
    GroupMaker make_subgroup;
    std::function<void()> close;  // before the group goes (NCCL's shutdown, which 2.x wants)
    bool check_calls = false;     // train.check_collectives (call_check.hpp)
  };

  explicit C10dCommunicator(Setup setup)
      : s_(std::move(setup)),
        ledger_group_(s_.ledger->add_group(s_.place.name, s_.place.run_ranks)) {}
  ~C10dCommunicator() override {
    if (s_.close) s_.close();
  }
  C10dCommunicator(const C10dCommunicator&) = delete;
  C10dCommunicator& operator=(const C10dCommunicator&) = delete;

  int rank() const override { return s_.place.rank; }
  int world_size() const override { return s_.place.size(); }
  std::string backend() const override { return s_.traits.name; }
  void describe_next(const std::string& words) override { describe_next_on_this_thread(words); }

  void broadcast(std::vector<torch::Tensor> tensors, int root) override {
    const std::string words = take_described_words();
    for (auto& tensor : tensors) {
      std::vector<torch::Tensor> one{on_wire(tensor)};
      c10d::BroadcastOptions options;
      options.rootRank = root;
      options.timeout = s_.timeout;
      const CollectiveTicket ticket = record("broadcast", tensor, words);
      check_same_call(ticket, "broadcast", tensor);
      wait_for(ticket, guarded(ticket, [&] { return s_.group->broadcast(one, options); }));
    }
  }

  void all_reduce_sum(std::vector<torch::Tensor> tensors) override {
    start_all_reduce_sum(std::move(tensors))->wait();
  }

  // One reduction per tensor: Gloo reduces a list only of equal sizes.
  std::unique_ptr<PendingCollective> start_all_reduce_sum(
      std::vector<torch::Tensor> tensors) override {
    const std::string words = take_described_words();
    auto pending = std::make_unique<Pending>(this);
    for (auto& tensor : tensors) {
      torch::Tensor wire = reducible(tensor);
      std::vector<torch::Tensor> one{wire};
      c10d::AllreduceOptions options;
      options.timeout = s_.timeout;
      const CollectiveTicket ticket = record("all_reduce", tensor, words);
      check_same_call(ticket, "all_reduce", tensor);
      pending->add(ticket, guarded(ticket, [&] { return s_.group->allreduce(one, options); }));
      pending->then_copy(tensor, wire);
    }
    return pending;
  }

  void barrier() override {
    c10d::BarrierOptions options;
    options.timeout = s_.timeout;
    const CollectiveTicket ticket = record("barrier", torch::Tensor(), take_described_words());
    check_same_call(ticket, "barrier", torch::Tensor());
    wait_for(ticket, guarded(ticket, [&] { return s_.group->barrier(options); }));
  }

  std::unique_ptr<PendingCollective> start_all_gather(torch::Tensor output,
                                                      torch::Tensor input) override {
    check_parts("all_gather", output, input);
    auto pending = std::make_unique<Pending>(this);
    torch::Tensor out = on_wire(output).view(-1), in = on_wire(input).view(-1);
    c10d::AllgatherOptions options;
    options.timeout = s_.timeout;
    const CollectiveTicket ticket = record("all_gather", output, take_described_words());
    check_same_call(ticket, "all_gather", output);
    if (s_.traits.flat_collectives) {
      pending->add(ticket,
                   guarded(ticket, [&] { return s_.group->_allgather_base(out, in, options); }));
    } else {
      std::vector<std::vector<torch::Tensor>> outputs{out.chunk(world_size())};
      std::vector<torch::Tensor> inputs{in};
      pending->add(ticket,
                   guarded(ticket, [&] { return s_.group->allgather(outputs, inputs, options); }));
    }
    pending->keep = {output, input};
    return pending;
  }

  std::unique_ptr<PendingCollective> start_reduce_scatter_sum(torch::Tensor output,
                                                              torch::Tensor input) override {
    check_parts("reduce_scatter", output, input);
    auto pending = std::make_unique<Pending>(this);
    torch::Tensor in = reducible(input).view(-1);
    const CollectiveTicket ticket = record("reduce_scatter", input, take_described_words());
    check_same_call(ticket, "reduce_scatter", input);
    if (s_.traits.flat_collectives) {
      torch::Tensor out = reducible(output).view(-1);
      c10d::ReduceScatterOptions options;
      options.timeout = s_.timeout;
      pending->add(ticket, guarded(ticket, [&] {
                     return s_.group->_reduce_scatter_base(out, in, options);
                   }));
      pending->then_copy(output, out);
    } else {
      // Every rank's r-th part to rank r, then their sum here, in rank order.
      torch::Tensor parts = torch::empty_like(in);
      std::vector<int64_t> equal_splits;
      c10d::AllToAllOptions options;
      options.timeout = s_.timeout;
      pending->add(ticket, guarded(ticket, [&] {
                     return s_.group->alltoall_base(parts, in, equal_splits, equal_splits, options);
                   }));
      const int world = world_size();
      pending->then = [output, parts, world]() mutable {
        output.view(-1).copy_(parts.view({world, -1}).sum(0));
      };
    }
    pending->keep = {output, input};
    return pending;
  }

  std::unique_ptr<PendingCollective> start_send(torch::Tensor tensor, int to) override {
    check_peer("send to", to);
    auto pending = std::make_unique<Pending>(this);
    std::vector<torch::Tensor> one{on_wire(tensor)};
    const CollectiveTicket ticket =
        record("send", tensor, take_described_words(), channel(rank(), to));
    pending->add(ticket, guarded(ticket, [&] { return s_.group->send(one, to, 0); }));
    pending->keep = {tensor};
    return pending;
  }

  std::unique_ptr<PendingCollective> start_receive(torch::Tensor tensor, int from) override {
    check_peer("receive from", from);
    auto pending = std::make_unique<Pending>(this);
    std::vector<torch::Tensor> one{on_wire(tensor)};
    const CollectiveTicket ticket =
        record("receive", tensor, take_described_words(), channel(from, rank()));
    pending->add(ticket, guarded(ticket, [&] { return s_.group->recv(one, from, 0); }));
    pending->keep = {tensor};
    return pending;
  }

  std::shared_ptr<Communicator> subgroup(const std::vector<int>& ranks) override {
    check_subgroup(ranks);
    const int made = ++subgroups_made_;
    const std::string prefix = "subgroup/" + std::to_string(made);
    GroupPlace place;
    place.name = s_.place.name + "/" + std::to_string(made);
    for (int r : ranks) place.run_ranks.push_back(s_.place.run_ranks[static_cast<size_t>(r)]);
    for (size_t i = 0; i < ranks.size(); ++i)
      if (ranks[i] == rank()) {
        place.rank = static_cast<int>(i);
        return s_.make_subgroup(c10::make_intrusive<c10d::PrefixStore>(prefix, s_.store), place);
      }
    return nullptr;
  }

 private:
  // Started works, waited for in order; `then` runs once they are all done.
  struct Pending final : PendingCollective {
    explicit Pending(C10dCommunicator* owner) : owner(owner) {}
    void add(CollectiveTicket ticket, c10::intrusive_ptr<c10d::Work> work) {
      works.emplace_back(ticket, std::move(work));
    }
    void wait() override {
      for (auto& [ticket, work] : works) owner->wait_for(ticket, work);
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
    std::vector<std::pair<CollectiveTicket, c10::intrusive_ptr<c10d::Work>>> works;
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
    if (whole.numel() != part.numel() * world_size() || !whole.is_contiguous() ||
        !part.is_contiguous() || whole.scalar_type() != part.scalar_type())
      throw std::invalid_argument(std::string(what) + ": the whole (" +
                                  std::to_string(whole.numel()) + " elements) must be " +
                                  std::to_string(world_size()) + " contiguous parts of " +
                                  std::to_string(part.numel()) + " of the same type");
  }

  void check_peer(const char* what, int peer) const {
    if (peer < 0 || peer >= world_size() || peer == rank())
      throw std::invalid_argument(std::string(what) + " rank " + std::to_string(peer) +
                                  ": not another rank of this group of " +
                                  std::to_string(world_size()));
  }

  void check_subgroup(const std::vector<int>& ranks) const {
    std::vector<bool> seen(static_cast<size_t>(world_size()));
    for (int r : ranks) {
      if (r < 0 || r >= world_size() || seen[static_cast<size_t>(r)])
        throw std::invalid_argument("subgroup: rank " + std::to_string(r) +
                                    " is not a distinct rank of this group of " +
                                    std::to_string(world_size()));
      seen[static_cast<size_t>(r)] = true;
    }
    if (ranks.empty()) throw std::invalid_argument("subgroup: no ranks");
  }

  // Messages from one rank to another arrive in the order sent: each direction is a channel
  // numbered alike on both ends ("world 0->1"), apart from the group's collectives, which not
  // every member's sends and receives would leave in step.
  int channel(int from, int to) {
    const std::lock_guard<std::mutex> lock(channels_mutex_);
    auto [it, made] = channels_.try_emplace({from, to}, 0);
    if (made) {
      const int run_from = s_.place.run_ranks[static_cast<size_t>(from)];
      const int run_to = s_.place.run_ranks[static_cast<size_t>(to)];
      it->second = s_.ledger->add_group(
          s_.place.name + " " + std::to_string(run_from) + "->" + std::to_string(run_to),
          {run_from, run_to});
    }
    return it->second;
  }

  // `tensor` undefined: a collective that moves no data (a barrier). The group's collectives
  // (not its sends and receives) meet an extra call injected before them.
  CollectiveTicket record(const char* op, const torch::Tensor& tensor, const std::string& words) {
    if (auto why = s_.ledger->take_planted_extra_call()) call_extra(*why, tensor);
    return record(op, tensor, words, ledger_group_);
  }

  // An all-reduce the other members do not call, one element longer than `tensor` (of its type,
  // on its device) so that it differs from their call even where it is also an all-reduce.
  // Before a barrier, one float on the group's device (NCCL reduces only on a GPU).
  void call_extra(const std::string& why, const torch::Tensor& tensor) {
    const torch::Tensor extra =
        tensor.defined() ? torch::zeros({tensor.numel() + 1}, tensor.options())
                         : torch::zeros({1}, torch::TensorOptions().device(newest_device()));
    describe_next_on_this_thread(why);
    all_reduce_sum({extra});
  }
  CollectiveTicket record(const char* op, const torch::Tensor& tensor, const std::string& words,
                          int group) {
    if (tensor.defined() && tensor.is_cuda())
      cuda_index_.store(tensor.device().index(), std::memory_order_relaxed);
    CollectiveLedger::Call call;
    call.group = group;
    call.op = op;
    call.words = &words;
    if (tensor.defined()) {
      call.dtype = c10::toString(tensor.scalar_type());
      call.elements = tensor.numel();
      call.bytes = tensor.numel() * static_cast<int64_t>(tensor.element_size());
    }
    const CollectiveTicket ticket = s_.ledger->issued(call);
    if (auto planted = s_.ledger->take_planted_failure())
      fail(ticket, std::runtime_error(*planted));
    return ticket;
  }

  // train.check_collectives: every member's call gathered before this one runs; a member that
  // called another collective, type or size fails every member at once, naming both calls.
  // NCCL gathers on the tensor's GPU: a barrier, which has none, is not checked there.
  void check_same_call(CollectiveTicket ticket, const char* op, const torch::Tensor& tensor) {
    if (!s_.check_calls || world_size() < 2 || (s_.traits.name == "nccl" && !tensor.defined()))
      return;
    const std::vector<int64_t> prints =
        gathered_prints(ticket,
                        call_print(op, tensor.defined() ? c10::toString(tensor.scalar_type()) : "",
                                   tensor.defined() ? tensor.numel() : 0),
                        tensor.defined() ? tensor.device() : torch::Device(torch::kCPU));
    const std::optional<OddMember> odd = odd_member(prints, rank());
    if (!odd) return;
    CollectiveEntry entry;
    const bool kept = s_.ledger->entry_of(ticket, entry);
    const CallMismatchSite site{s_.place.name,
                                kept ? entry.sequence : 0,
                                rank(),
                                odd->member,
                                s_.place.run_ranks[static_cast<size_t>(rank())],
                                s_.place.run_ranks[static_cast<size_t>(odd->member)],
                                elements_of(prints, rank()),
                                elements_of(prints, odd->member),
                                kept ? entry_text(*s_.ledger, entry) : std::string(op)};
    s_.ledger->ended(ticket, false);
    throw RunError(mismatch_message(*s_.store, site, odd->mismatch));
  }

  // Every member's call_print(), in group order.
  std::vector<int64_t> gathered_prints(CollectiveTicket ticket, const std::vector<int64_t>& mine,
                                       torch::Device device) {
    const auto options = torch::TensorOptions().dtype(torch::kLong).device(device);
    std::vector<torch::Tensor> inputs{torch::tensor(mine, torch::kLong).to(device)};
    std::vector<std::vector<torch::Tensor>> outputs(1);
    for (int r = 0; r < world_size(); ++r)
      outputs[0].push_back(torch::empty({kCallPrintSize}, options));
    c10d::AllgatherOptions gather;
    gather.timeout = s_.timeout;
    const auto work = guarded(ticket, [&] { return s_.group->allgather(outputs, inputs, gather); });
    try {
      work->wait(s_.timeout);
      if (s_.traits.worker_holds_finished_work) wait_until_only_held_here(work);
    } catch (const std::exception& e) {
      fail(ticket, e);
    }
    std::vector<int64_t> prints;
    for (const torch::Tensor& print : outputs[0]) {
      const torch::Tensor here = print.cpu();
      prints.insert(prints.end(), here.data_ptr<int64_t>(),
                    here.data_ptr<int64_t>() + kCallPrintSize);
    }
    return prints;
  }

  // A failed collective, ended so in the ledger and named by its entry where it still has one.
  [[noreturn]] void fail(CollectiveTicket ticket, const std::exception& e) {
    s_.ledger->ended(ticket, false);
    CollectiveEntry entry;
    const std::string what =
        s_.ledger->entry_of(ticket, entry) ? entry_text(*s_.ledger, entry) : "a collective";
    throw PeerFailure(s_.health->diagnose(what, one_line(e)));
  }

  template <typename F>
  c10::intrusive_ptr<c10d::Work> guarded(CollectiveTicket ticket, F&& start) {
    try {
      return start();
    } catch (const std::exception& e) {
      fail(ticket, e);
    }
  }

  void wait_for(CollectiveTicket ticket, const c10::intrusive_ptr<c10d::Work>& work) {
    const auto start = std::chrono::steady_clock::now();
    const torch::Device device = newest_device();
    std::unique_ptr<StreamStall> stall =
        s_.waits && s_.stream_stall && device.is_cuda() ? s_.stream_stall(device) : nullptr;
    try {
      work->wait(s_.timeout);
      if (s_.traits.worker_holds_finished_work) wait_until_only_held_here(work);
    } catch (const std::exception& e) {
      fail(ticket, e);
    }
    s_.ledger->ended(ticket, true);
    if (!s_.waits) return;
    if (stall) {
      stall->end();
      s_.waits->add_later(std::move(stall));
    } else {
      s_.waits->add(std::chrono::steady_clock::now() - start);
    }
  }

  // The GPU of the newest CUDA tensor this group was given, else the CPU: where a call without a
  // tensor of its own (a barrier) runs.
  torch::Device newest_device() const {
    const int index = cuda_index_.load(std::memory_order_relaxed);
    if (index < 0) return torch::Device(torch::kCPU);
    return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index));
  }

  // Bounded: a worker descheduled for longer only frees the buffers later.
  static void wait_until_only_held_here(const c10::intrusive_ptr<c10d::Work>& work) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (work.use_count() > 1 && std::chrono::steady_clock::now() < give_up)
      std::this_thread::yield();
  }

  Setup s_;
  int ledger_group_ = 0;
  std::atomic<int> cuda_index_{-1};  // newest_device()'s GPU; -1: none yet
  std::mutex channels_mutex_;
  std::map<std::pair<int, int>, int> channels_;  // (from, to) in this group: its ledger group
  int subgroups_made_ = 0;
};

}  // namespace runner::distributed
