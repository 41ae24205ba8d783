// Hands out the batches of one pass in order. With workers, background threads prepare the
// next batches (read, copied to the device, augmented) while the current one computes; the
// queue is bounded so that memory stays at a few batches whatever the pass length.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "runner/dataset.hpp"

namespace runner::train {

// Builds batch `index` of the pass, ready for the step. Called from worker threads.
using BatchMaker = std::function<Batch(int64_t index)>;

class BatchLoader {
 public:
  // num_workers 0: each batch is made by next(), in the caller's thread. Otherwise up to
  // num_workers * prefetch batches are made ahead of the one being consumed.
  BatchLoader(int64_t count, BatchMaker make, int64_t num_workers, int64_t prefetch);
  ~BatchLoader();
  BatchLoader(const BatchLoader&) = delete;
  BatchLoader& operator=(const BatchLoader&) = delete;

  bool done() const { return consumed_ >= count_; }
  // The next batch in order; rethrows what making it threw. Precondition: !done().
  Batch next();

 private:
  struct Slot {
    Batch batch;
    std::exception_ptr error;
  };

  void work();
  bool may_claim() const;

  const int64_t count_;
  const BatchMaker make_;
  const int64_t capacity_;
  std::mutex mutex_;
  std::condition_variable claimable_;  // workers wait for room in the queue
  std::condition_variable ready_;      // next() waits for its batch
  std::map<int64_t, Slot> slots_;      // made and not yet consumed, by index
  int64_t claimed_ = 0;
  int64_t consumed_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace runner::train
