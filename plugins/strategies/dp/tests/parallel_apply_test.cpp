// Tests of parallel_apply: threads, how many devices work, grad modes carried, failures rethrown.
#include "parallel_apply.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

namespace runner::strategies::dp_tests {
namespace {

const std::vector<torch::Device> kThreeCpus(3, torch::kCPU);

TEST(ParallelApply, EachPieceRunsOnItsOwnThreadTheFirstOnTheCaller) {
  std::mutex mutex;
  std::set<std::thread::id> threads;
  std::thread::id first;
  parallel_apply(kThreeCpus, 3, [&](size_t i) {
    std::lock_guard<std::mutex> lock(mutex);
    threads.insert(std::this_thread::get_id());
    if (i == 0) first = std::this_thread::get_id();
  });
  EXPECT_EQ(threads.size(), 3u);
  EXPECT_EQ(first, std::this_thread::get_id());
}

TEST(ParallelApply, OnlyTheFirstCountDevicesWork) {
  std::atomic<int> calls{0};
  parallel_apply(kThreeCpus, 2, [&](size_t i) {
    EXPECT_LT(i, 2u);
    ++calls;
  });
  EXPECT_EQ(calls.load(), 2);
}

TEST(ParallelApply, TheCallersGradAndInferenceModesReachEveryThread) {
  std::atomic<int> without_grad{0}, in_inference{0};
  auto record = [&](size_t) {
    without_grad += torch::GradMode::is_enabled() ? 0 : 1;
    in_inference += c10::InferenceMode::is_enabled() ? 1 : 0;
  };
  {
    torch::NoGradGuard no_grad;
    parallel_apply(kThreeCpus, 3, record);
  }
  EXPECT_EQ(without_grad.load(), 3);
  EXPECT_EQ(in_inference.load(), 0);
  {
    c10::InferenceMode inference;
    parallel_apply(kThreeCpus, 3, record);
  }
  EXPECT_EQ(in_inference.load(), 3);
}

TEST(ParallelApply, AFailureIsRethrownAfterEveryPieceHasFinished) {
  std::atomic<int> finished{0};
  auto work = [&](size_t i) {
    if (i == 2) throw std::runtime_error("device 2 failed");
    ++finished;
  };
  try {
    parallel_apply(kThreeCpus, 3, work);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "device 2 failed");
  }
  EXPECT_EQ(finished.load(), 2);
}

}  // namespace
}  // namespace runner::strategies::dp_tests
