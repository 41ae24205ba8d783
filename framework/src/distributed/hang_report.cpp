// The hang report: mismatched collectives, the first collective not every member joined, and
// where each rank was.
#include "distributed/hang_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <map>

namespace runner::distributed {
namespace {

// A collective as every member of its group numbers it.
struct Place {
  std::string group;
  uint64_t sequence = 0;
  bool operator<(const Place& o) const {
    return std::tie(group, sequence) < std::tie(o.group, o.sequence);
  }
};

struct Call {
  int rank = 0;
  const PublishedCollective* collective = nullptr;
};

std::string ranks_text(const std::vector<int>& ranks) {
  return (ranks.size() == 1 ? "rank " : "ranks ") + fmt::format("{}", fmt::join(ranks, ", "));
}

std::string duration_text(double seconds) {
  return seconds < 10 ? fmt::format("{:.1f} s", seconds) : fmt::format("{:.0f} s", seconds);
}

std::string phase_text(const RankState& s) { return fmt::format("{} of step {}", s.phase, s.step); }

// A collective no member completes before every member joined it (unlike a send, or the root
// of a broadcast).
bool joined_by_all(const PublishedCollective& c) {
  return c.state == "completed" && (c.op == "all_reduce" || c.op == "all_gather" ||
                                    c.op == "reduce_scatter" || c.op == "barrier");
}

// `rank`'s newest collective of `group` as its own state has it (0: none).
uint64_t own_sequence(const RankSeen& r, const std::string& group) {
  if (r.state)
    for (const PublishedGroup& g : r.state->groups)
      if (g.name == group) return g.sequence;
  return 0;
}

bool has_member(const RankState& s, const std::string& group, int rank) {
  for (const PublishedGroup& g : s.groups)
    if (g.name == group) return std::find(g.ranks.begin(), g.ranks.end(), rank) != g.ranks.end();
  return false;
}

// The newest collective that another rank completed with `r` after r's own state was
// published: a rank publishes a beat apart, and a short run's steps can all fall between two
// beats, so another's ledger may know better how far a rank that died or stopped got.
const PublishedCollective* joined_since(const std::vector<RankSeen>& ranks, const RankSeen& r) {
  const PublishedCollective* newest = nullptr;
  for (const RankSeen& other : ranks)
    if (other.rank != r.rank && other.state)
      for (const PublishedCollective& c : other.state->collectives)
        if (joined_by_all(c) && has_member(*other.state, c.group, r.rank) &&
            c.sequence > own_sequence(r, c.group) &&
            (!newest || c.issued_unix > newest->issued_unix))
          newest = &c;
  return newest;
}

// "rank 1 was killed by signal 9 (SIGKILL), last seen in forward of step 9", "rank 1 has been
// in data loading of step 38 for 61 s", "rank 2 waits in broadcast #3 of world (...) for 2.0 s".
// A rank that died or stopped published its state up to a beat before: where it was last seen,
// or the newest collective the others completed with it since.
std::string whereabouts(const std::vector<RankSeen>& ranks, const RankSeen& r) {
  const std::string who = "rank " + std::to_string(r.rank);
  if (!r.fate.empty())
    if (const PublishedCollective* since = joined_since(ranks, r))
      return fmt::format("{} {}, last seen completing {}", who, r.fate, since->text);
  if (!r.state) return who + (r.fate.empty() ? " published no state" : " " + r.fate);
  const RankState& s = *r.state;
  if (!r.fate.empty()) return fmt::format("{} {}, last seen in {}", who, r.fate, phase_text(s));
  if (const PublishedCollective* waiting = s.stuck_in())
    return fmt::format("{} waits in {} for {}", who, waiting->text,
                       duration_text(s.published_unix - waiting->issued_unix));
  return fmt::format("{} has been in {} for {}", who, phase_text(s),
                     duration_text(s.published_unix - s.phase_since_unix));
}

std::map<Place, std::vector<Call>> calls_by_place(const std::vector<RankSeen>& ranks) {
  std::map<Place, std::vector<Call>> calls;
  for (const RankSeen& r : ranks)
    if (r.state)
      for (const PublishedCollective& c : r.state->collectives)
        calls[{c.group, c.sequence}].push_back({r.rank, &c});
  return calls;
}

bool send_and_receive(const PublishedCollective& a, const PublishedCollective& b) {
  return (a.op == "send" && b.op == "receive") || (a.op == "receive" && b.op == "send");
}

// What differs between two calls at one place, or nullptr. A channel's send and receive are
// the two ends of one message.
const char* mismatch_class(const PublishedCollective& a, const PublishedCollective& b) {
  if (a.op != b.op && !send_and_receive(a, b)) return "different collectives";
  if (a.dtype != b.dtype) return "different dtypes";
  if (a.elements != b.elements) return "different sizes";
  return nullptr;
}

// The earliest place where ranks called different collectives, sizes or dtypes.
std::optional<std::string> mismatch(const std::map<Place, std::vector<Call>>& calls) {
  double earliest = std::numeric_limits<double>::infinity();
  std::optional<std::string> found;
  for (const auto& [place, at] : calls)
    for (size_t i = 1; i < at.size(); ++i) {
      const char* kind = mismatch_class(*at[0].collective, *at[i].collective);
      if (!kind || at[0].collective->issued_unix >= earliest) continue;
      earliest = at[0].collective->issued_unix;
      found = fmt::format("ranks {} and {} called {} as #{} of {}: rank {} {}; rank {} {}",
                          at[0].rank, at[i].rank, kind, place.sequence, place.group, at[0].rank,
                          at[0].collective->text, at[i].rank, at[i].collective->text);
    }
  return found;
}

// A group's members and how far each got: the sequence number of its newest collective, or
// nullopt for a member that published no state, or died or stopped (its state may be a beat
// old: a lower bound).
struct GroupProgress {
  std::vector<int> members;
  std::map<int, std::optional<uint64_t>> sequence;
};

std::map<std::string, GroupProgress> group_progress(const std::vector<RankSeen>& ranks) {
  std::map<std::string, GroupProgress> groups;
  for (const RankSeen& r : ranks)
    if (r.state)
      for (const PublishedGroup& g : r.state->groups) groups[g.name].members = g.ranks;
  for (auto& [name, progress] : groups)
    for (int member : progress.members) {
      std::optional<uint64_t> seq;
      for (const RankSeen& r : ranks)
        if (r.rank == member && r.state && r.fate.empty()) {
          seq = 0;  // a member that never made the group never called on it
          for (const PublishedGroup& g : r.state->groups)
            if (g.name == name) seq = g.sequence;
        }
      progress.sequence[member] = seq;
    }
  return groups;
}

struct NotJoined {
  Place place;
  std::vector<int> joined, missing;
  std::string text;  // the collective as a member that joined it recorded it
  double issued_unix = std::numeric_limits<double>::infinity();
};

std::optional<NotJoined> not_joined_in(const std::string& name, const GroupProgress& g,
                                       const std::map<Place, std::vector<Call>>& calls) {
  uint64_t lowest = std::numeric_limits<uint64_t>::max(), highest = 0;
  for (const auto& [member, seq] : g.sequence)
    if (seq) lowest = std::min(lowest, *seq), highest = std::max(highest, *seq);
  if (highest == 0 || lowest >= highest) return std::nullopt;
  NotJoined n;
  n.place = {name, lowest + 1};
  for (int member : g.members) {
    const auto& seq = g.sequence.at(member);
    (seq && *seq > lowest ? n.joined : n.missing).push_back(member);
  }
  n.text = fmt::format("#{} of {}", n.place.sequence, name);
  if (auto at = calls.find(n.place); at != calls.end()) {
    n.text = at->second.front().collective->text;
    n.issued_unix = at->second.front().collective->issued_unix;
  }
  return n;
}

// The first collective, by when it was called, that some members of its group never joined.
std::optional<NotJoined> first_not_joined(const std::vector<RankSeen>& ranks,
                                          const std::map<Place, std::vector<Call>>& calls) {
  std::optional<NotJoined> first;
  for (const auto& [name, progress] : group_progress(ranks))
    if (auto n = not_joined_in(name, progress, calls))
      if (!first || n->issued_unix < first->issued_unix) first = n;
  return first;
}

RankSeen seen(const std::vector<RankSeen>& ranks, int rank) {
  for (const RankSeen& r : ranks)
    if (r.rank == rank) return r;
  return {rank, "", std::nullopt};
}

std::string not_joined_line(const std::vector<RankSeen>& ranks, const NotJoined& n) {
  std::vector<std::string> parts;
  for (int r : n.missing) parts.push_back(whereabouts(ranks, seen(ranks, r)));
  parts.push_back(fmt::format("{} wait{} in {}", ranks_text(n.joined),
                              n.joined.size() == 1 ? "s" : "", n.text));
  return fmt::format("{}", fmt::join(parts, "; "));
}

// Without a collective some members missed: the ranks whose process ended the run first, then
// where the others wait.
std::string fault_line(const std::vector<RankSeen>& ranks) {
  std::vector<std::string> parts;
  std::map<Place, std::vector<int>> waiting;
  std::map<Place, std::string> texts;
  for (const RankSeen& r : ranks) {
    if (!r.fate.empty() || (r.state && r.state->stalled)) {
      parts.push_back(whereabouts(ranks, r));
    } else if (const PublishedCollective* c = r.state ? r.state->stuck_in() : nullptr) {
      waiting[{c->group, c->sequence}].push_back(r.rank);
      texts[{c->group, c->sequence}] = c->text;
    }
  }
  if (parts.empty()) return "";
  for (const auto& [place, who] : waiting)
    parts.push_back(
        fmt::format("{} wait{} in {}", ranks_text(who), who.size() == 1 ? "s" : "", texts[place]));
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::string detail_line(const std::vector<RankSeen>& ranks, const RankSeen& r) {
  std::string line = fmt::format("rank {}: ", r.rank);
  const PublishedCollective* since = r.fate.empty() ? nullptr : joined_since(ranks, r);
  if (since) line += fmt::format("{}, last seen completing {}; ", r.fate, since->text);
  if (!r.state)
    return line + (since            ? "no state"
                   : r.fate.empty() ? "published no state"
                                    : r.fate + ", no state");
  const RankState& s = *r.state;
  if (since)
    line += "its own state, older: ";
  else if (!r.fate.empty())
    line += r.fate + ", last seen ";
  if (s.stalled) line += "gave up (train.stall_timeout_s), ";
  line += fmt::format("in {} for {}", phase_text(s),
                      duration_text(s.published_unix - s.phase_since_unix));
  if (const PublishedCollective* c = s.stuck_in())
    line += fmt::format(", waits in {} for {}", c->text,
                        duration_text(s.published_unix - c->issued_unix));
  const PublishedCollective* done = s.last_completed();
  return line + "; last completed: " + (done ? done->text : "none");
}

}  // namespace

HangReport hang_report(const std::vector<RankSeen>& ranks) {
  HangReport report;
  const auto calls = calls_by_place(ranks);
  if (auto different = mismatch(calls))
    report.first_line = *different;
  else if (auto n = first_not_joined(ranks, calls))
    report.first_line = not_joined_line(ranks, *n);
  else
    report.first_line = fault_line(ranks);
  for (const RankSeen& r : ranks) report.detail.push_back(detail_line(ranks, r));
  return report;
}

}  // namespace runner::distributed
