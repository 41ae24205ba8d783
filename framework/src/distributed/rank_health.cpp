// RankHealth: store keys per rank, the heartbeat thread, and which rank a failure is blamed on.
#include "distributed/rank_health.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace runner::distributed {
namespace {

std::string key(const char* kind, int rank) {
  return std::string(kind) + "/" + std::to_string(rank);
}

std::vector<uint8_t> bytes(const std::string& text) { return {text.begin(), text.end()}; }

// A store call that must not turn a diagnosis into a second failure.
template <typename F>
auto quietly(F&& f, decltype(f()) otherwise) {
  try {
    return f();
  } catch (const std::exception&) {
    return otherwise;
  }
}

std::string rank_list(const std::vector<int>& ranks) {
  return (ranks.size() == 1 ? "rank " : "ranks ") + fmt::format("{}", fmt::join(ranks, ", "));
}

// A report that cannot reach the store changes nothing the rank could act on.
template <typename F>
void best_effort(F&& f) {
  try {
    f();
  } catch (const std::exception&) {
  }
}

std::optional<std::string> reported(c10d::Store& store, const char* kind, int rank) {
  return quietly(
      [&]() -> std::optional<std::string> {
        if (!store.check({key(kind, rank)})) return std::nullopt;
        auto value = store.get(key(kind, rank));
        return std::string(value.begin(), value.end());
      },
      std::nullopt);
}

}  // namespace

std::optional<std::string> reported_failure(c10d::Store& store, int rank) {
  return reported(store, "failed", rank);
}

std::optional<std::string> reported_hint(c10d::Store& store, int rank) {
  return reported(store, "hint", rank);
}

std::optional<std::string> reported_peer_failure(c10d::Store& store, int rank) {
  return reported(store, "peer", rank);
}

std::optional<RankState> published_state(c10d::Store& store, int rank) {
  const std::optional<std::string> text = reported(store, "state", rank);
  return text ? decode_rank_state(*text) : std::nullopt;
}

RankHealth::RankHealth(c10::intrusive_ptr<c10d::Store> store,
                       c10::intrusive_ptr<c10d::Store> beat_store, int rank, int world_size,
                       ProgressWatch watch)
    : store_(std::move(store)),
      beat_store_(std::move(beat_store)),
      rank_(rank),
      world_size_(world_size),
      watch_(std::move(watch)),
      beater_("heartbeat", kBeat, FirstTick::at_once, [this] { return beat(); }) {}

// A store that went away ends the beats; the diagnosis then finds it gone too.
bool RankHealth::beat() {
  if (watch_.ledger) {
    watch_for_stall();
    best_effort([&] {
      beat_store_->set(key("state", rank_), bytes(encode_rank_state(*watch_.ledger, rank_, false)));
    });
  }
  return quietly([&] { return beat_store_->add(key("beat", rank_), 1) > 0; }, false);
}

void RankHealth::publish_state() {
  if (!watch_.ledger) return;
  best_effort([&] {
    store_->set(key("state", rank_), bytes(encode_rank_state(*watch_.ledger, rank_, false)));
  });
}

// Waiting in a collective is progress the collective's own timeout watches; before the first
// step (loading, connecting) and after the last, the rank is not watched.
void RankHealth::watch_for_stall() {
  const auto now = std::chrono::steady_clock::now();
  const uint64_t changes = watch_.ledger->changes();
  if (changes != changes_seen_ || watch_.stall_timeout.count() == 0) {
    changes_seen_ = changes;
    changed_at_ = now;
    return;
  }
  if (now - changed_at_ < watch_.stall_timeout) return;
  const RankActivity activity = watch_.ledger->activity();
  const auto newest = watch_.ledger->newest_entries(1);
  const bool waiting = !newest.empty() && newest.back().state == CollectiveState::issued;
  if (activity.step < 1 || activity.phase == RunPhase::finishing || waiting) return;
  give_up(activity, std::chrono::duration_cast<std::chrono::seconds>(now - changed_at_));
}

// The main thread is stuck where no signal reaches it: the process ends from here, its state
// and failure in the store for the launcher's report.
void RankHealth::give_up(const RankActivity& activity, std::chrono::seconds stalled) {
  const std::string message =
      fmt::format("made no progress for {} s in {} of step {} (train.stall_timeout_s = {})",
                  stalled.count(), phase_name(activity.phase), activity.step,
                  std::chrono::duration_cast<std::chrono::seconds>(watch_.stall_timeout).count());
  best_effort([&] {
    beat_store_->set(key("state", rank_), bytes(encode_rank_state(*watch_.ledger, rank_, true)));
    beat_store_->set(key("failed", rank_), bytes(message));
  });
  fmt::print(stderr, "rank {}: error: {}\n", rank_, message);
  std::fflush(stderr);
  std::_Exit(5);
}

void RankHealth::mark_joined() { store_->set(key("joined", rank_), bytes("1")); }

std::vector<int> RankHealth::ranks_not_joined() {
  std::vector<int> missing;
  for (int r = 0; r < world_size_; ++r)
    if (!quietly([&] { return store_->check({key("joined", r)}); }, false)) missing.push_back(r);
  return missing;
}

void RankHealth::report_failure(const std::string& message, const std::string& hint) {
  // The hint first: a reader that finds the failure finds its hint too.
  if (!hint.empty()) best_effort([&] { store_->set(key("hint", rank_), bytes(hint)); });
  best_effort([&] { store_->set(key("failed", rank_), bytes(message)); });
}

void RankHealth::report_peer_failure(const std::string& message) {
  best_effort([&] { store_->set(key("peer", rank_), bytes(message)); });
}

void RankHealth::report_done() {
  best_effort([&] { store_->set(key("done", rank_), bytes("1")); });
}

std::vector<int64_t> RankHealth::beats() {
  std::vector<int64_t> counts;
  for (int r = 0; r < world_size_; ++r)
    counts.push_back(quietly([&] { return store_->add(key("beat", r), 0); }, int64_t{-1}));
  return counts;
}

std::vector<int> RankHealth::ranks_done() {
  std::vector<int> done;
  for (int r = 0; r < world_size_; ++r)
    if (quietly([&] { return store_->check({key("done", r)}); }, false)) done.push_back(r);
  return done;
}

std::string RankHealth::diagnose(const std::string& what, const std::string& error) {
  // A rank that failed on its own reports it before its process ends: give it a moment.
  const auto deadline = std::chrono::steady_clock::now() + 4 * kBeat;
  const std::vector<int64_t> before = beats();
  if (before[rank_] < 0)
    return fmt::format(
        "{} failed: the rendezvous store is gone (its host, the launcher or "
        "rank 0, stopped): {}",
        what, error);
  do {
    for (int r = 0; r < world_size_; ++r)
      if (r != rank_)
        if (auto message = reported_failure(*store_, r))
          return fmt::format("{} failed: rank {} failed: {}", what, r, *message);
    std::this_thread::sleep_for(kBeat);
  } while (std::chrono::steady_clock::now() < deadline);
  const std::vector<int64_t> after = beats();
  const std::vector<int> done = ranks_done();
  std::vector<int> silent;
  for (int r = 0; r < world_size_; ++r)
    if (r != rank_ && after[r] == before[r] && std::find(done.begin(), done.end(), r) == done.end())
      silent.push_back(r);
  if (!silent.empty())
    return fmt::format("{} failed: {} stopped (its process died or was killed): {}", what,
                       rank_list(silent), error);
  return fmt::format("{} failed: {}", what, error);
}

}  // namespace runner::distributed
