// Ranks as threads of one test process, connected by Gloo through an in-memory store: what
// tests of communicators and multi-rank strategies run on.
#pragma once

#include <chrono>
#include <functional>
#include <memory>

#include "distributed/connect.hpp"

namespace runner::testing {

using RankBody = std::function<void(int rank, distributed::RankConnection& connection)>;
// What a test changes in each rank's connection (train.check_collectives, ...).
using SpecChange = std::function<void(distributed::ConnectSpec& spec)>;

// Runs `body` on `world_size` connected ranks at once; rethrows the first rank's exception.
void on_ranks(int world_size, const RankBody& body,
              std::chrono::milliseconds timeout = std::chrono::seconds(30),
              const SpecChange& change = nullptr);

}  // namespace runner::testing
