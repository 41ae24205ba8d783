// Two Gloo ranks in one process, connected through an in-process store, timing the collectives
// the strategies use.
#include "layout/collective_rates.hpp"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <runner/errors.hpp>
#include <thread>
#include <torch/csrc/distributed/c10d/HashStore.hpp>

#include "common/started_threads.hpp"
#include "distributed/connect.hpp"
#include "layout/best_seconds.hpp"

namespace runner::layout {
namespace {

// One rank's measurements; both ranks run the same calls in the same order.
CollectiveRates measure_as_rank(int rank, const c10::intrusive_ptr<c10d::Store>& store,
                                int64_t bytes) {
  distributed::ConnectSpec spec;
  spec.backend = "gloo";
  spec.store = spec.beat_store = store;
  spec.store_address = "runner plan's calibration";
  spec.loopback = true;
  spec.rank = rank;
  spec.world_size = 2;
  spec.timeout = std::chrono::milliseconds(60000);
  const distributed::RankConnection connection = distributed::connect_ranks(spec);
  Communicator& group = *connection.communicator;
  const int64_t elements = bytes / 4;
  torch::Tensor whole = torch::ones({2 * elements}), part = torch::ones({elements});
  CollectiveRates rates;
  // A ring all-reduce of n bytes moves 2 (2 - 1) / 2 n = n per rank; a gather or a scatter of
  // a whole of 2 n bytes, (2 - 1) / 2 of it: n.
  const double moved = static_cast<double>(elements) * 4;
  auto no_sync = [] {};  // a CPU collective has ended when its call returns
  rates.all_reduce = moved / best_seconds([&] { group.all_reduce_sum({part}); }, no_sync);
  rates.all_gather =
      moved / best_seconds([&] { group.start_all_gather(whole, part)->wait(); }, no_sync);
  rates.reduce_scatter =
      moved / best_seconds([&] { group.start_reduce_scatter_sum(part, whole)->wait(); }, no_sync);
  group.barrier();
  return rates;
}

}  // namespace

CollectiveRates measure_gloo_collectives(int64_t bytes) {
  const c10::intrusive_ptr<c10d::Store> store = c10::make_intrusive<c10d::HashStore>();
  CollectiveRates rates[2];
  std::exception_ptr failed[2];
  std::vector<std::thread> ranks;
  start_threads(ranks, 2, "collective measurement", [&](int64_t r) {
    try {
      at::set_num_threads(1);
      rates[r] = measure_as_rank(static_cast<int>(r), store, bytes);
    } catch (...) {
      failed[r] = std::current_exception();
    }
  });
  for (auto& t : ranks) t.join();
  for (const auto& f : failed)
    if (f) std::rethrow_exception(f);
  // The slower rank's: a collective ends for both when it ends for the later.
  return {std::min(rates[0].all_reduce, rates[1].all_reduce),
          std::min(rates[0].all_gather, rates[1].all_gather),
          std::min(rates[0].reduce_scatter, rates[1].reduce_scatter)};
}

}  // namespace runner::layout
