// train.check_collectives: the members' calls compared before a collective runs; a member that
// called another collective, type or size fails every member at once with both calls named,
// and calls that agree run as without the check.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <mutex>
#include <runner_testing/in_process_ranks.hpp>
#include <string>
#include <vector>

#include "distributed/call_check.hpp"
#include "runner/errors.hpp"

namespace runner::testing {
namespace {

using distributed::call_print;
using distributed::CallMismatch;
using distributed::odd_member;

std::vector<int64_t> prints_of(const std::vector<std::vector<int64_t>>& calls) {
  std::vector<int64_t> prints;
  for (const auto& call : calls) prints.insert(prints.end(), call.begin(), call.end());
  return prints;
}

TEST(CallCheck, FindsTheMemberWhoseCallDiffersAndHow) {
  const auto reduce = call_print("all_reduce", "Float", 10);
  EXPECT_EQ(reduce, call_print("all_reduce", "Float", 10));
  EXPECT_FALSE(odd_member(prints_of({reduce, reduce, reduce}), 1));
  const auto bigger = call_print("all_reduce", "Float", 11);
  const auto odd = odd_member(prints_of({reduce, reduce, bigger}), 0);
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->member, 2);
  EXPECT_EQ(odd->mismatch, CallMismatch::size);
  const auto seen_by_the_odd_one = odd_member(prints_of({reduce, reduce, bigger}), 2);
  ASSERT_TRUE(seen_by_the_odd_one);
  EXPECT_EQ(seen_by_the_odd_one->member, 0);
  EXPECT_EQ(odd_member(prints_of({reduce, call_print("broadcast", "Float", 10)}), 0)->mismatch,
            CallMismatch::op);
  EXPECT_EQ(odd_member(prints_of({reduce, call_print("all_reduce", "BFloat16", 10)}), 0)->mismatch,
            CallMismatch::dtype);
}

// Each rank's RunError text ("" where none) after `body` ran on 2 ranks, the check on or off.
std::vector<std::string> errors_on_two_ranks(const RankBody& body, bool check) {
  std::mutex mutex;
  std::vector<std::string> errors(2);
  on_ranks(
      2,
      [&](int rank, distributed::RankConnection& c) {
        try {
          body(rank, c);
        } catch (const RunError& e) {
          const std::lock_guard<std::mutex> lock(mutex);
          errors[static_cast<size_t>(rank)] = e.what();
        }
      },
      std::chrono::seconds(5),
      [check](distributed::ConnectSpec& spec) { spec.check_collectives = check; });
  return errors;
}

// The same error on both ranks: every member fails at once with the same line.
std::vector<std::string> both_ranks(const std::string& error) { return {error, error}; }

// Rank 1 all-reduces `rank1_elements` where rank 0 all-reduces 4; each rank's error, or "".
std::vector<std::string> errors_when_rank1_reduces(int64_t rank1_elements, bool check) {
  return errors_on_two_ranks(
      [&](int rank, distributed::RankConnection& c) {
        c.communicator->describe_next(rank == 0 ? "bucket 1 of 2" : "bucket 2 of 2");
        c.communicator->all_reduce_sum({torch::ones({rank == 0 ? 4 : rank1_elements})});
      },
      check);
}

TEST(CallCheck, ADifferentSizeFailsBothRanksAtOnceNamingBothCalls) {
  EXPECT_EQ(errors_when_rank1_reduces(5, true),
            both_ranks("ranks 0 and 1 called different sizes (4 and 5 elements) as #1 of world: "
                       "rank 0 all_reduce #1 of world (bucket 1 of 2, 16 B Float, step 0, "
                       "setup); rank 1 all_reduce #1 of world (bucket 2 of 2, 20 B Float, step "
                       "0, setup)"));
}

// fault.kind = "extra_collective": the rank calls an all-reduce one element longer than its
// next collective first, which the check meets as that collective's number on the others.
TEST(CallCheck, AnExtraCallInjectedBeforeTheNextIsNamedAsTheFault) {
  const std::vector<std::string> errors = errors_on_two_ranks(
      [](int rank, distributed::RankConnection& c) {
        if (rank == 1) c.ledger->call_extra_next("an extra call");
        c.communicator->describe_next("bucket 1 of 1");
        c.communicator->all_reduce_sum({torch::ones({3})});
      },
      true);
  EXPECT_EQ(errors,
            both_ranks("ranks 0 and 1 called different sizes (3 and 4 elements) as #1 of world: "
                       "rank 0 all_reduce #1 of world (bucket 1 of 1, 12 B Float, step 0, "
                       "setup); rank 1 all_reduce #1 of world (an extra call, 16 B Float, step "
                       "0, setup)"));
}

TEST(CallCheck, CallsThatAgreeRunAsWithoutIt) {
  EXPECT_EQ(errors_when_rank1_reduces(4, true), both_ranks(""));
  EXPECT_EQ(errors_when_rank1_reduces(4, false), both_ranks(""));
}

}  // namespace
}  // namespace runner::testing
