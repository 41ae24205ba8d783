// The collectives sharded strategies use: all-gather, reduce-scatter, send and receive, and
// sub-groups, over Gloo (which lacks some of them in LibTorch 1.13 and reduces no bf16).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <runner_testing/in_process_ranks.hpp>
#include "distributed/connect.hpp"
#include "distributed/peer_failure.hpp"

using ::testing::HasSubstr;

namespace runner::testing {
namespace {

using distributed::RankConnection;

// (3) values of rank r: 10r + 1, 10r + 2, 10r + 3.
torch::Tensor part_of(int rank, torch::Dtype dtype = torch::kFloat) {
  return (torch::arange(1, 4) + 10 * rank).to(dtype);
}

TEST(Collectives, AllGatherJoinsEveryRanksPartInRankOrder) {
  on_ranks(3, [](int rank, RankConnection& c) {
    for (auto dtype : {torch::kFloat, torch::kBFloat16, torch::kFloat64}) {
      torch::Tensor whole = torch::zeros({9}, dtype);
      c.communicator->all_gather(whole, part_of(rank, dtype));
      EXPECT_TRUE(torch::equal(
          whole, torch::cat({part_of(0, dtype), part_of(1, dtype), part_of(2, dtype)})))
          << dtype << " on rank " << rank << ": " << whole;
    }
  });
}

TEST(Collectives, ReduceScatterGivesEachRankItsPartOfTheSum) {
  on_ranks(2, [](int rank, RankConnection& c) {
    for (auto dtype : {torch::kFloat, torch::kBFloat16}) {
      // rank r contributes (r + 1) * [1 .. 6]; the sum is 3 * [1 .. 6].
      torch::Tensor input = (torch::arange(1, 7) * (rank + 1)).to(dtype);
      torch::Tensor mine = torch::zeros({3}, dtype);
      c.communicator->reduce_scatter_sum(mine, input);
      torch::Tensor expected = (torch::arange(1, 7) * 3).to(dtype).chunk(2)[rank];
      EXPECT_TRUE(torch::equal(mine, expected)) << dtype << " on rank " << rank << ": " << mine;
    }
  });
}

TEST(Collectives, ReduceScatterInPlaceIntoTheRanksOwnPart) {
  on_ranks(2, [](int rank, RankConnection& c) {
    torch::Tensor buffer = torch::full({4}, rank + 1.0);
    torch::Tensor own = buffer.narrow(0, int64_t{2} * rank, 2);
    c.communicator->start_reduce_scatter_sum(own, buffer)->wait();
    EXPECT_TRUE(torch::equal(own, torch::full({2}, 3.0)));
  });
}

// The state a strategy measures after a step must not count a finished collective's buffers,
// which Gloo's worker thread holds a moment after the work completes.
TEST(Collectives, AFinishedCollectiveHoldsNoneOfItsTensors) {
  on_ranks(2, [](int rank, RankConnection& c) {
    for (int i = 0; i < 50; ++i) {
      torch::Tensor input = torch::full({1 << 12}, rank + 1.0);
      torch::Tensor mine = torch::zeros({1 << 11});
      c.communicator->start_reduce_scatter_sum(mine, input)->wait();
      torch::Tensor whole = torch::zeros({1 << 12});
      c.communicator->start_all_gather(whole, mine)->wait();
      ASSERT_EQ(input.storage().use_count(), 1) << "reduce-scatter " << i << " on rank " << rank;
      ASSERT_EQ(whole.storage().use_count(), 1) << "all-gather " << i << " on rank " << rank;
    }
  });
}

TEST(Collectives, BfloatReductionsAreSummedInSinglePrecision) {
  on_ranks(3, [](int rank, RankConnection& c) {
    // 256 + 1 + 1: bf16 has no 257 (256 + 1 rounds to 256, twice), but has 258.
    torch::Tensor t = torch::full({2}, rank == 0 ? 256.0 : 1.0, torch::kBFloat16);
    c.communicator->all_reduce_sum({t});
    EXPECT_EQ(t.scalar_type(), torch::kBFloat16);
    EXPECT_TRUE(torch::equal(t, torch::full({2}, 258.0, torch::kBFloat16))) << t;
  });
}

TEST(Collectives, AllReduceTakesTensorsOfDifferentSizes) {
  on_ranks(2, [](int rank, RankConnection& c) {
    torch::Tensor a = torch::full({3}, rank + 1.0), b = torch::full({5}, 2.0 * (rank + 1));
    c.communicator->all_reduce_sum({a, b});
    EXPECT_TRUE(torch::equal(a, torch::full({3}, 3.0)));
    EXPECT_TRUE(torch::equal(b, torch::full({5}, 6.0)));
  });
}

TEST(Collectives, MessagesBetweenTwoRanksArriveInOrder) {
  on_ranks(2, [](int rank, RankConnection& c) {
    if (rank == 0) {
      std::vector<torch::Tensor> sent{torch::full({1000}, 1.0), torch::full({3}, 2.0),
                                      torch::full({2, 2}, 3.0, torch::kBFloat16)};
      std::vector<std::unique_ptr<PendingCollective>> sends;
      for (auto& t : sent) sends.push_back(c.communicator->start_send(t, 1));
      for (auto& s : sends) s->wait();
      return;
    }
    torch::Tensor first = torch::zeros({1000}), second = torch::zeros({3});
    torch::Tensor third = torch::zeros({2, 2}, torch::kBFloat16);
    auto later = c.communicator->start_receive(first, 0);
    auto middle = c.communicator->start_receive(second, 0);
    c.communicator->receive(third, 0);
    middle->wait();
    later->wait();
    EXPECT_TRUE(torch::equal(first, torch::full({1000}, 1.0)));
    EXPECT_TRUE(torch::equal(second, torch::full({3}, 2.0)));
    EXPECT_TRUE(torch::equal(third, torch::full({2, 2}, 3.0, torch::kBFloat16)));
  });
}

// A 2 x 2 mesh: rows {0, 1} and {2, 3}, columns {0, 2} and {1, 3}.
TEST(Collectives, SubgroupsOfAMeshReduceWithinThemselves) {
  on_ranks(4, [](int rank, RankConnection& c) {
    std::shared_ptr<Communicator> row, column;
    for (const std::vector<int>& ranks : {std::vector<int>{0, 1}, std::vector<int>{2, 3}})
      if (auto g = c.communicator->subgroup(ranks)) row = g;
    for (const std::vector<int>& ranks : {std::vector<int>{0, 2}, std::vector<int>{1, 3}})
      if (auto g = c.communicator->subgroup(ranks)) column = g;
    ASSERT_TRUE(row && column);
    EXPECT_EQ(row->world_size(), 2);
    EXPECT_EQ(row->rank(), rank % 2);
    EXPECT_EQ(column->rank(), rank / 2);
    torch::Tensor in_row = torch::full({2}, static_cast<double>(rank));
    row->all_reduce_sum({in_row});
    EXPECT_EQ(in_row[0].item<double>(), rank < 2 ? 0 + 1 : 2 + 3);
    torch::Tensor gathered = torch::zeros({2});
    column->all_gather(gathered, torch::full({1}, static_cast<double>(rank)));
    EXPECT_TRUE(torch::equal(gathered, torch::tensor({rank % 2, rank % 2 + 2}).to(torch::kFloat)));
    if (row->rank() == 0)
      row->send(torch::full({1}, 7.0 + rank), 1);
    else {
      torch::Tensor got = torch::zeros({1});
      row->receive(got, 0);
      EXPECT_EQ(got.item<double>(), 7.0 + rank - 1);
    }
  });
}

TEST(Collectives, ARankOutsideASubgroupGetsNone) {
  on_ranks(3, [](int rank, RankConnection& c) {
    auto pair = c.communicator->subgroup({2, 0});
    EXPECT_EQ(pair == nullptr, rank == 1);
    if (pair) {
      EXPECT_EQ(pair->rank(), rank == 2 ? 0 : 1);  // in the order the ranks were listed
      pair->barrier();
    }
  });
}

TEST(Collectives, CallsThatCannotBeRightSayWhy) {
  on_ranks(2, [](int rank, RankConnection& c) {
    auto error_of = [](const std::function<void()>& call) {
      try {
        call();
      } catch (const std::invalid_argument& e) {
        return std::string(e.what());
      }
      return std::string("no error");
    };
    EXPECT_EQ(
        error_of([&] { c.communicator->all_gather(torch::zeros({5}), torch::zeros({2})); }),
        "all_gather: the whole (5 elements) must be 2 contiguous parts of 2 of the same type");
    EXPECT_EQ(error_of([&] { c.communicator->send(torch::zeros({1}), rank); }),
              "send to rank " + std::to_string(rank) + ": not another rank of this group of 2");
    EXPECT_EQ(error_of([&] {
                c.communicator->subgroup({0, 0});
              }),
              "subgroup: rank 0 is not a distinct rank of this group of 2");
  });
}

TEST(Collectives, AReceiveFromARankThatVanishedNamesIt) {
  std::string message = "no error";
  on_ranks(
      2,
      [&](int rank, RankConnection& c) {
        c.communicator->barrier();
        if (rank == 1) {
          c.communicator.reset();
          c.health.reset();
          return;
        }
        try {
          torch::Tensor t = torch::zeros({4});
          c.communicator->receive(t, 1);
        } catch (const distributed::PeerFailure& e) {
          message = e.what();
        }
      },
      std::chrono::milliseconds(4000));
  EXPECT_THAT(message, HasSubstr("rank 1")) << message;
}

TEST(Collectives, OneRankCopiesAndRefusesPeers) {
  SingleRankCommunicator one;
  torch::Tensor out = torch::zeros({3});
  one.all_gather(out, torch::ones({3}));
  EXPECT_TRUE(torch::equal(out, torch::ones({3})));
  one.reduce_scatter_sum(out, torch::full({3}, 2.0));
  EXPECT_TRUE(torch::equal(out, torch::full({3}, 2.0)));
  EXPECT_THROW(one.send(out, 1), std::invalid_argument);
  EXPECT_NE(one.subgroup({0}), nullptr);
}

}  // namespace
}  // namespace runner::testing
