// Tests of the batch loader: batches with and without workers, the prefetch bound, prompt stops.
#include <gtest/gtest.h>

#include <ATen/Parallel.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "train/batch_loader.hpp"

namespace runner::train {
namespace {

// Batch i holds the number i; later batches are made faster, so workers finish out of order.
Batch numbered(int64_t i, int64_t count) {
  std::this_thread::sleep_for(std::chrono::microseconds(200 * (count - i)));
  return Batch{torch::full({1}, i, torch::kInt64), torch::zeros({1}, torch::kInt64)};
}

std::vector<int64_t> drain(BatchLoader& loader) {
  std::vector<int64_t> seen;
  while (!loader.done()) seen.push_back(loader.next().inputs.item<int64_t>());
  return seen;
}

class BatchLoaderWorkers : public ::testing::TestWithParam<int64_t> {};

TEST_P(BatchLoaderWorkers, HandsOutEveryBatchInOrder) {
  const int64_t count = 20;
  BatchLoader loader(
      count, [&](int64_t i) { return numbered(i, count); }, GetParam(), 2);
  std::vector<int64_t> expected(count);
  for (int64_t i = 0; i < count; ++i) expected[static_cast<size_t>(i)] = i;
  EXPECT_EQ(drain(loader), expected);
}

TEST_P(BatchLoaderWorkers, RethrowsAFailureAtItsOwnBatch) {
  BatchLoader loader(
      5,
      [](int64_t i) {
        if (i == 3) throw std::runtime_error("bad record in batch 3");
        return numbered(i, 5);
      },
      GetParam(), 2);
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(loader.next().inputs.item<int64_t>(), i);
  EXPECT_THROW(
      {
        try {
          loader.next();
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "bad record in batch 3");
          throw;
        }
      },
      std::runtime_error);
}

INSTANTIATE_TEST_SUITE_P(Workers, BatchLoaderWorkers, ::testing::Values(0, 1, 3));

TEST(BatchLoader, WithoutWorkersMakesEachBatchWhenAsked) {
  std::atomic<int64_t> made{0};
  BatchLoader loader(
      4,
      [&](int64_t i) {
        ++made;
        return numbered(i, 4);
      },
      0, 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(made.load(), 0);
  loader.next();
  EXPECT_EQ(made.load(), 1);
}

TEST(BatchLoader, WorkersStayWithinTheirPrefetchBound) {
  const int64_t workers = 2, prefetch = 3, count = 40;
  std::atomic<int64_t> made{0}, consumed{0}, worst_lead{0};
  BatchLoader loader(
      count,
      [&](int64_t i) {
        const int64_t lead = i - consumed.load();
        if (lead > worst_lead.load()) worst_lead = lead;
        ++made;
        return numbered(i, count);
      },
      workers, prefetch);
  while (!loader.done()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // a slow step
    loader.next();
    ++consumed;
  }
  EXPECT_EQ(made.load(), count);
  // A worker starts batch i only while i < consumed + workers * prefetch (this count of
  // consumed batches lags the loader's by at most one).
  EXPECT_LE(worst_lead.load(), workers * prefetch);
  EXPECT_GE(worst_lead.load(), workers);  // and it does work ahead
}

TEST(BatchLoader, StopsPromptlyWhenDroppedEarly) {
  const auto start = std::chrono::steady_clock::now();
  {
    BatchLoader loader(
        100000, [](int64_t i) { return numbered(i, i + 1); }, 3, 2);
    loader.next();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(BatchLoader, WorkersComputeOnOneThreadAndLeaveTheCallersThreadsAlone) {
  at::set_num_threads(2);
  std::atomic<int> worker_threads{0};
  {
    BatchLoader loader(
        1,
        [&](int64_t i) {
          worker_threads = at::get_num_threads();
          return numbered(i, 1);
        },
        1, 1);
    loader.next();
  }
  EXPECT_EQ(worker_threads.load(), 1);
  EXPECT_EQ(at::get_num_threads(), 2);
}

}  // namespace
}  // namespace runner::train
