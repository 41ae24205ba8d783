// CollectiveLedger: a ring of the rank's latest collectives under one lock, and their text.
#include "distributed/collective_ledger.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <utility>

namespace runner::distributed {
namespace {

template <size_t N>
void copy_cut(std::array<char, N>& to, const char* from, size_t length) {
  const size_t n = std::min(length, N - 1);
  std::memcpy(to.data(), from, n);
  to[n] = '\0';
}

thread_local std::string described_words;

std::string size_text(int64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (b >= 1e9) return fmt::format("{:.1f} GB", b / 1e9);
  if (b >= 1e6) return fmt::format("{:.1f} MB", b / 1e6);
  if (b >= 1e3) return fmt::format("{:.1f} kB", b / 1e3);
  return fmt::format("{} B", bytes);
}

}  // namespace

void describe_next_on_this_thread(const std::string& words) { described_words = words; }

std::string take_described_words() { return std::exchange(described_words, std::string()); }

const char* phase_name(RunPhase phase) {
  switch (phase) {
    case RunPhase::setup: return "setup";
    case RunPhase::data_loading: return "data loading";
    case RunPhase::forward: return "forward";
    case RunPhase::backward: return "backward";
    case RunPhase::optimizer: return "optimizer";
    case RunPhase::evaluation: return "evaluation";
    case RunPhase::metrics: return "metrics";
    case RunPhase::checkpoint: return "checkpoint";
    case RunPhase::finishing: return "finishing";
  }
  return "?";
}

const char* state_name(CollectiveState state) {
  switch (state) {
    case CollectiveState::issued: return "issued";
    case CollectiveState::completed: return "completed";
    case CollectiveState::failed: return "failed";
  }
  return "?";
}

CollectiveLedger::CollectiveLedger(size_t capacity) : ring_(capacity) {}

int CollectiveLedger::add_group(const std::string& name, const std::vector<int>& ranks) {
  const std::lock_guard<std::mutex> lock(mutex_);
  groups_.push_back({name, ranks, 0});
  return static_cast<int>(groups_.size()) - 1;
}

std::string CollectiveLedger::group_name(int group) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return groups_.at(static_cast<size_t>(group)).name;
}

std::vector<int> CollectiveLedger::group_ranks(int group) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return groups_.at(static_cast<size_t>(group)).ranks;
}

double CollectiveLedger::seconds_now() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - made_).count();
}

std::optional<size_t> CollectiveLedger::slot_of(uint64_t serial) const {
  if (ring_.empty() || serial == 0) return std::nullopt;
  const size_t slot = (serial - 1) % ring_.size();
  if (ring_[slot].serial != serial) return std::nullopt;
  return slot;
}

void PlantedFault::plant(const std::string& why) {
  const std::lock_guard<std::mutex> lock(mutex_);
  why_ = why;
  planted_ = true;
}

std::optional<std::string> PlantedFault::take() {
  if (!planted_.load(std::memory_order_relaxed)) return std::nullopt;
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!planted_.exchange(false)) return std::nullopt;
  return std::exchange(why_, {});
}

CollectiveTicket CollectiveLedger::issued(const Call& call) {
  const double now = seconds_now();
  const std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t sequence = ++groups_.at(static_cast<size_t>(call.group)).sequence;
  const uint64_t serial = ++serial_;
  changes_.fetch_add(1, std::memory_order_relaxed);
  if (ring_.empty()) return {serial};
  CollectiveEntry& e = ring_[(serial - 1) % ring_.size()];
  e.serial = serial;
  e.sequence = sequence;
  e.group = call.group;
  e.op = call.op;
  copy_cut(e.dtype, call.dtype, std::strlen(call.dtype));
  e.elements = call.elements;
  e.bytes = call.bytes;
  e.step = activity_.step;
  e.phase = activity_.phase;
  if (call.words)
    copy_cut(e.words, call.words->data(), call.words->size());
  else
    e.words[0] = '\0';
  e.state = CollectiveState::issued;
  e.issued_s = now;
  e.ended_s = -1;
  return {serial};
}

void CollectiveLedger::ended(CollectiveTicket ticket, bool ok) {
  const double now = seconds_now();
  const std::lock_guard<std::mutex> lock(mutex_);
  changes_.fetch_add(1, std::memory_order_relaxed);
  const std::optional<size_t> slot = slot_of(ticket.serial);
  if (!slot) return;
  ring_[*slot].state = ok ? CollectiveState::completed : CollectiveState::failed;
  ring_[*slot].ended_s = now;
}

bool CollectiveLedger::entry_of(CollectiveTicket ticket, CollectiveEntry& entry) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  const std::optional<size_t> slot = slot_of(ticket.serial);
  if (slot) entry = ring_[*slot];
  return slot.has_value();
}

void CollectiveLedger::enter(RunPhase phase, int64_t step) {
  const double now = seconds_now();
  const std::lock_guard<std::mutex> lock(mutex_);
  changes_.fetch_add(1, std::memory_order_relaxed);
  activity_ = {phase, step, now};
}

void CollectiveLedger::enter(RunPhase phase) {
  const double now = seconds_now();
  const std::lock_guard<std::mutex> lock(mutex_);
  changes_.fetch_add(1, std::memory_order_relaxed);
  activity_ = {phase, activity_.step, now};
}

RankActivity CollectiveLedger::activity() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return activity_;
}

std::vector<CollectiveEntry> CollectiveLedger::entries() const {
  return newest_entries(ring_.size());
}

std::vector<CollectiveEntry> CollectiveLedger::newest_entries(size_t count) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t kept = std::min<uint64_t>({serial_, ring_.size(), count});
  std::vector<CollectiveEntry> out;
  out.reserve(kept);
  for (uint64_t serial = serial_ - kept + 1; serial <= serial_; ++serial)
    out.push_back(ring_[(serial - 1) % ring_.size()]);
  return out;
}

std::vector<CollectiveLedger::GroupCount> CollectiveLedger::group_counts() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return groups_;
}

uint64_t CollectiveLedger::collectives() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return serial_;
}

std::string entry_text(const CollectiveLedger& ledger, const CollectiveEntry& e) {
  std::string detail = e.words[0] ? std::string(e.words.data()) + ", " : std::string();
  if (e.dtype[0]) detail += size_text(e.bytes) + " " + e.dtype.data() + ", ";
  detail += "step " + std::to_string(e.step) + ", " + phase_name(e.phase);
  return fmt::format("{} #{} of {} ({})", e.op, e.sequence, ledger.group_name(e.group), detail);
}

}  // namespace runner::distributed
