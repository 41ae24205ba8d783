// A rank's record of its collectives: the last N in a ring, each with its group, its sequence
// number there (the same collective has the same number on every member), op, type, size, the
// step and phase it was called in, the caller's words, its state and times. What the rank is
// doing now (its phase and step, since when) beside them. Fixed memory: entries are plain data
// in a ring made once, so a collective allocates nothing here.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace runner::distributed {

// Where in a run a rank is: what a hang report says a rank was doing.
enum class RunPhase : uint8_t {
  setup,
  data_loading,
  forward,
  backward,
  optimizer,
  evaluation,
  metrics,
  checkpoint,
  finishing
};
const char* phase_name(RunPhase phase);  // "data loading", "forward", ...

enum class CollectiveState : uint8_t { issued, completed, failed };
const char* state_name(CollectiveState state);

struct CollectiveEntry {
  uint64_t serial = 0;    // in this ledger, from 1: what a ticket names
  uint64_t sequence = 0;  // in its group, from 1
  int group = 0;          // CollectiveLedger::group_name() names it
  const char* op = "";    // "all_reduce", "broadcast", ... (a literal)
  std::array<char, 16> dtype{};
  int64_t elements = 0;
  int64_t bytes = 0;
  int64_t step = 0;  // the training step it was called in, from 1; 0: before the first
  RunPhase phase = RunPhase::setup;
  std::array<char, 64> words{};  // the caller's, cut to fit
  CollectiveState state = CollectiveState::issued;
  double issued_s = 0;  // since the ledger was made
  double ended_s = -1;  // -1: not ended
};

// What a rank is doing: its phase of step `step` (from 1; 0: before the first), entered
// `since_s` after the ledger was made.
struct RankActivity {
  RunPhase phase = RunPhase::setup;
  int64_t step = 0;
  double since_s = 0;
};

// An issued collective's place in the ring; its entry may have been overwritten since.
struct CollectiveTicket {
  uint64_t serial = 0;  // 0: none (the ledger is off)
};

// A fault one thread plants for the next collective of another, taken once: an atomic load
// while none is planted, so a collective pays no lock for it.
class PlantedFault {
 public:
  void plant(const std::string& why);
  std::optional<std::string> take();

 private:
  std::mutex mutex_;
  std::atomic<bool> planted_{false};
  std::string why_;
};

class CollectiveLedger {
 public:
  // `capacity` entries kept (the newest); 0 keeps none, and the ledger costs a lock per call.
  explicit CollectiveLedger(size_t capacity);
  CollectiveLedger(const CollectiveLedger&) = delete;
  CollectiveLedger& operator=(const CollectiveLedger&) = delete;

  // A communicator's group: its name (the same on every member) and the run's ranks in it,
  // in the group's order. Returns the group's number in this ledger's entries.
  int add_group(const std::string& name, const std::vector<int>& ranks);
  std::string group_name(int group) const;
  std::vector<int> group_ranks(int group) const;

  struct Call {
    int group = 0;
    const char* op = "";
    const char* dtype = "";
    int64_t elements = 0;
    int64_t bytes = 0;
    const std::string* words = nullptr;  // may be nullptr
  };
  // The next sequence number of the call's group, in an entry at the current phase and step.
  CollectiveTicket issued(const Call& call);
  void ended(CollectiveTicket ticket, bool ok);
  // The entry of `ticket`, if the ring still holds it.
  bool entry_of(CollectiveTicket ticket, CollectiveEntry& entry) const;

  // A fault injected: the next collective issued on any of the rank's communicators fails
  // with `why`, through the path a real failure takes.
  void fail_next(const std::string& why) { planted_failure_.plant(why); }
  // The failure fail_next planted, once; nullopt without one (an atomic load, no lock).
  std::optional<std::string> take_planted_failure() { return planted_failure_.take(); }
  // A fault injected: before its next collective (not a send or receive) the rank calls one
  // more, which the other members do not: a code path that diverged.
  void call_extra_next(const std::string& why) { planted_extra_call_.plant(why); }
  // The words call_extra_next planted, once; nullopt without one.
  std::optional<std::string> take_planted_extra_call() { return planted_extra_call_.take(); }

  void enter(RunPhase phase, int64_t step);
  void enter(RunPhase phase);  // at the current step
  RankActivity activity() const;

  std::vector<CollectiveEntry> entries() const;                     // oldest first
  std::vector<CollectiveEntry> newest_entries(size_t count) const;  // oldest first
  uint64_t collectives() const;                                     // all issued, kept or not
  // Raised by every collective issued or ended and every phase entered: unchanged, the rank
  // made no progress.
  uint64_t changes() const { return changes_.load(std::memory_order_relaxed); }
  // Each group's name, ranks and sequence number of its newest collective.
  struct GroupCount {
    std::string name;
    std::vector<int> ranks;
    uint64_t sequence = 0;
  };
  std::vector<GroupCount> group_counts() const;
  size_t capacity() const { return ring_.size(); }
  double seconds_now() const;

 private:
  using Group = GroupCount;
  // Where the ring holds the entry of `serial`, if it still does; under the lock.
  std::optional<size_t> slot_of(uint64_t serial) const;

  const std::chrono::steady_clock::time_point made_ = std::chrono::steady_clock::now();
  mutable std::mutex mutex_;
  std::vector<CollectiveEntry> ring_;
  uint64_t serial_ = 0;  // of the newest entry, from 1
  std::vector<Group> groups_;
  RankActivity activity_;
  std::atomic<uint64_t> changes_{0};
  PlantedFault planted_failure_;
  PlantedFault planted_extra_call_;
};

// The caller's words for its thread's next call on a communicator (Communicator::
// describe_next); that call takes them, so the one after has none. One per thread, whichever
// communicator (or sub-group) the call is on.
void describe_next_on_this_thread(const std::string& words);
std::string take_described_words();

// "all_reduce #412 of world (ddp bucket 2 of 7, 4.2 MB Float, step 38, backward)".
std::string entry_text(const CollectiveLedger& ledger, const CollectiveEntry& entry);

}  // namespace runner::distributed
