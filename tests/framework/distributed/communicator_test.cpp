// Tests of the communicators: all-reduce, broadcast, and missing, failed or vanished ranks named.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <runner_testing/in_process_ranks.hpp>
#include <thread>
#include <torch/csrc/distributed/c10d/HashStore.hpp>

#include "distributed/connect.hpp"
#include "distributed/nccl_group.hpp"
#include "distributed/peer_failure.hpp"
#include "proc_net_tcp.hpp"
#include "runner/errors.hpp"

using ::testing::HasSubstr;

namespace runner::testing {
namespace {

using distributed::RankConnection;

TEST(Communicator, AllReduceSumsOverEveryRank) {
  on_ranks(3, [](int rank, RankConnection& c) {
    auto t = torch::full({4}, static_cast<double>(rank + 1), torch::kFloat64);
    c.communicator->all_reduce_sum({t});
    EXPECT_TRUE(torch::equal(t, torch::full({4}, 6.0, torch::kFloat64)));  // 1 + 2 + 3
    EXPECT_EQ(c.communicator->world_size(), 3);
    EXPECT_EQ(c.communicator->rank(), rank);
    EXPECT_EQ(c.communicator->backend(), "gloo");
  });
}

TEST(Communicator, StartedReductionsFinishOnWaitInOrder) {
  on_ranks(2, [](int rank, RankConnection& c) {
    auto a = torch::full({1000}, rank + 1.0);
    auto b = torch::full({10}, 10.0 * (rank + 1));
    auto first = c.communicator->start_all_reduce_sum({a});
    auto second = c.communicator->start_all_reduce_sum({b});
    first->wait();
    second->wait();
    EXPECT_TRUE(torch::equal(a, torch::full({1000}, 3.0)));
    EXPECT_TRUE(torch::equal(b, torch::full({10}, 30.0)));
  });
}

TEST(Communicator, BroadcastCopiesTheRootsTensorsEverywhere) {
  on_ranks(2, [](int rank, RankConnection& c) {
    auto x = torch::full({2, 3}, static_cast<float>(rank * 7 + 1));
    auto y = torch::full({5}, static_cast<float>(rank * 7 + 2));
    c.communicator->broadcast({x, y}, 1);
    EXPECT_TRUE(torch::equal(x, torch::full({2, 3}, 8.0f)));
    EXPECT_TRUE(torch::equal(y, torch::full({5}, 9.0f)));
    c.communicator->barrier();
  });
}

TEST(Communicator, ARendezvousWithAMissingRankTimesOutNamingIt) {
  auto store = c10::make_intrusive<c10d::HashStore>();
  distributed::ConnectSpec spec;
  spec.store = spec.beat_store = store;
  spec.store_address = "in-process";
  spec.loopback = true;
  spec.backend = "gloo";
  spec.rank = 0;
  spec.world_size = 2;
  spec.timeout = std::chrono::milliseconds(1500);
  const auto start = std::chrono::steady_clock::now();
  try {
    distributed::connect_ranks(spec);
    FAIL() << "connected without rank 1";
  } catch (const RunError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("rank 1 of 2 never joined")) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(15));
}

// Rank 1 leaves while rank 0 waits for it in an all-reduce; rank 0's error names rank 1.
std::string error_of_rank0_when_rank1_leaves(bool rank1_reports) {
  std::string message;
  on_ranks(
      2,
      [&](int rank, RankConnection& c) {
        c.communicator->barrier();
        if (rank == 1) {
          if (rank1_reports) c.health->report_failure("data file truncated");
          c.communicator.reset();
          c.health.reset();
          return;
        }
        try {
          auto t = torch::ones({1 << 20});
          c.communicator->all_reduce_sum({t});
          message = "no error";
        } catch (const distributed::PeerFailure& e) {
          message = e.what();
        }
      },
      std::chrono::milliseconds(5000));
  return message;
}

TEST(Communicator, ACollectiveWithARankThatFailedNamesItAndItsError) {
  const std::string message = error_of_rank0_when_rank1_leaves(true);
  // The barrier is the group's first collective; 1 << 20 floats are 4.2 MB.
  EXPECT_THAT(message, HasSubstr("all_reduce #2 of world (4.2 MB Float, step 0, setup) failed: "
                                 "rank 1 failed: data file truncated"))
      << message;
}

TEST(Communicator, ACollectiveWithARankThatVanishedNamesIt) {
  const std::string message = error_of_rank0_when_rank1_leaves(false);
  EXPECT_THAT(message, HasSubstr("rank 1 stopped")) << message;
}

TEST(Communicator, BackendsSayWhyTheyCannotRunHere) {
  EXPECT_EQ(distributed::backend_unavailable("gloo", 8), std::nullopt);
  if (distributed::nccl_built() && torch::cuda::device_count() >= 1) GTEST_SKIP() << "has NCCL";
  auto why = distributed::backend_unavailable("nccl", 2);
  ASSERT_TRUE(why.has_value());
  EXPECT_THAT(*why, HasSubstr("backend nccl needs")) << *why;
}

// RUNNER_NODE_ADDR: the ranks' Gloo binds the node's address (127.0.0.7: no other test's).
TEST(Communicator, GlooBindsTheNodesAddress) {
  on_ranks(
      2,
      [](int, RankConnection& c) {
        auto t = torch::ones({4});
        c.communicator->all_reduce_sum({t});
        EXPECT_GT(sockets_bound_to("0700007F"), 0);
        c.communicator->barrier();
      },
      std::chrono::seconds(30),
      [](distributed::ConnectSpec& spec) { spec.node_address = "127.0.0.7"; });
}

TEST(Communicator, ANodeAddressOfAnotherMachineIsNamed) {
  try {
    on_ranks(
        2, [](int, RankConnection&) { FAIL() << "connected"; }, std::chrono::seconds(5),
        [](distributed::ConnectSpec& spec) { spec.node_address = "192.0.2.1"; });
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "RUNNER_NODE_ADDR = \"192.0.2.1\" is no address of this machine");
  }
}

// NCCL's wait() only makes the GPU's stream wait for the collective: the wait is timed on that
// stream and counted when the clock is read.
TEST(Communicator, NcclWaitsAreTimedOnTheGpusStream) {
  if (!distributed::nccl_built() || !torch::cuda::is_available())
    GTEST_SKIP() << "needs NCCL and a CUDA device";
  auto clock = std::make_shared<distributed::WaitClock>();
  on_ranks(
      1,
      [](int, RankConnection& c) {
        auto t = torch::ones({1 << 26}, torch::Device(torch::kCUDA, 0));  // 256 MB
        c.communicator->all_reduce_sum({t});
        EXPECT_TRUE(torch::equal(t.cpu(), torch::ones({1 << 26})));
      },
      std::chrono::seconds(60),
      [&clock](distributed::ConnectSpec& spec) {
        spec.backend = "nccl";
        spec.waits = clock;
      });
  EXPECT_GT(clock->seconds(), 0.0);
}

}  // namespace
}  // namespace runner::testing
