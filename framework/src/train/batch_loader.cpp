// The batches of one pass, made in order, by worker threads when asked.
#include "train/batch_loader.hpp"

#include "common/started_threads.hpp"
#include "measure/system.hpp"

namespace runner::train {
BatchLoader::BatchLoader(int64_t count, BatchMaker make, int64_t num_workers, int64_t prefetch)
    : count_(count), make_(std::move(make)), capacity_(num_workers * prefetch) {
  start_threads(workers_, std::min(num_workers, count), "data loader", [this](int64_t) { work(); });
}

BatchLoader::~BatchLoader() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  claimable_.notify_all();
  for (auto& worker : workers_) worker.join();
}

bool BatchLoader::may_claim() const {
  return claimed_ < count_ && claimed_ < consumed_ + capacity_;
}

void BatchLoader::work() {
  // On cores the step already keeps busy, a second team of threads per worker would stall the
  // step's team instead of helping it.
  measure::use_one_thread_in_this_thread();
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    claimable_.wait(lock, [this] { return stopping_ || claimed_ >= count_ || may_claim(); });
    if (stopping_ || claimed_ >= count_) return;
    const int64_t index = claimed_++;
    lock.unlock();
    Slot slot;
    try {
      slot.batch = make_(index);
    } catch (...) {
      slot.error = std::current_exception();
    }
    lock.lock();
    slots_.emplace(index, std::move(slot));
    ready_.notify_all();
  }
}

Batch BatchLoader::next() {
  if (workers_.empty()) return make_(consumed_++);
  std::unique_lock<std::mutex> lock(mutex_);
  ready_.wait(lock, [this] { return slots_.count(consumed_) != 0; });
  auto it = slots_.find(consumed_);
  Slot slot = std::move(it->second);
  slots_.erase(it);
  ++consumed_;
  lock.unlock();
  claimable_.notify_all();
  if (slot.error) std::rethrow_exception(slot.error);
  return std::move(slot.batch);
}

}  // namespace runner::train
