// Ranks as threads of one test process, connected by Gloo through an in-memory store.
#include <runner_testing/in_process_ranks.hpp>

#include <torch/csrc/distributed/c10d/HashStore.hpp>

#include <exception>
#include <thread>
#include <vector>

namespace runner::testing {

void on_ranks(int world_size, const RankBody& body, std::chrono::milliseconds timeout,
              const SpecChange& change) {
  auto store = c10::make_intrusive<c10d::HashStore>();
  std::vector<std::exception_ptr> errors(static_cast<size_t>(world_size));
  std::vector<std::thread> ranks;
  for (int r = 0; r < world_size; ++r)
    ranks.emplace_back([&, r] {
      try {
        distributed::ConnectSpec spec;
        spec.store = store;
        spec.beat_store = store;
        spec.store_address = "in-process";
        spec.loopback = true;
        spec.backend = "gloo";
        spec.rank = r;
        spec.world_size = world_size;
        spec.timeout = timeout;
        if (change) change(spec);
        distributed::RankConnection connection = distributed::connect_ranks(spec);
        body(r, connection);
      } catch (...) {
        errors[static_cast<size_t>(r)] = std::current_exception();
      }
    });
  for (auto& rank : ranks) rank.join();
  for (auto& error : errors)
    if (error) std::rethrow_exception(error);
}

}  // namespace runner::testing
