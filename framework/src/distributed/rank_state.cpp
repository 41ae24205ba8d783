// A rank's state as text for the store, and back.
#include "distributed/rank_state.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <sstream>

namespace runner::distributed {
namespace {

// A field's text without the separators of the encoding.
std::string field(std::string text) {
  std::replace_if(
      text.begin(), text.end(), [](char c) { return c == '\t' || c == '\n'; }, ' ');
  return text;
}

std::vector<std::string> split(const std::string& line, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(line);
  while (std::getline(in, part, separator)) parts.push_back(part);
  if (!line.empty() && line.back() == separator) parts.emplace_back();
  return parts;
}

template <typename T>
std::optional<T> number(const std::string& text) {
  T value{};
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || stop != end) return std::nullopt;
  return value;
}

std::optional<int64_t> integer(const std::string& text) { return number<int64_t>(text); }

std::optional<double> real(const std::string& text) { return number<double>(text); }

bool decode_rank_line(const std::vector<std::string>& f, RankState& state) {
  if (f.size() != 7) return false;
  auto rank = integer(f[1]), step = integer(f[3]);
  auto since = real(f[4]), published = real(f[5]);
  if (!rank || !step || !since || !published) return false;
  state.rank = static_cast<int>(*rank);
  state.phase = f[2];
  state.step = *step;
  state.phase_since_unix = *since;
  state.published_unix = *published;
  state.stalled = f[6] == "1";
  return true;
}

bool decode_group_line(const std::vector<std::string>& f, RankState& state) {
  if (f.size() != 4) return false;
  PublishedGroup group{f[1], {}, 0};
  for (const std::string& r : split(f[2], ',')) {
    auto rank = integer(r);
    if (!rank) return false;
    group.ranks.push_back(static_cast<int>(*rank));
  }
  auto sequence = integer(f[3]);
  if (!sequence || *sequence < 0) return false;
  group.sequence = static_cast<uint64_t>(*sequence);
  state.groups.push_back(std::move(group));
  return true;
}

bool decode_collective_line(const std::vector<std::string>& f, RankState& state) {
  if (f.size() != 10) return false;
  auto sequence = integer(f[2]), elements = integer(f[5]), step = integer(f[6]);
  auto issued = real(f[8]);
  if (!sequence || *sequence < 0 || !elements || !step || !issued) return false;
  state.collectives.push_back(
      {f[1], static_cast<uint64_t>(*sequence), f[3], f[4], *elements, *step, f[7], *issued, f[9]});
  return true;
}

}  // namespace

double unix_seconds_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

const PublishedCollective* RankState::stuck_in() const {
  if (collectives.empty() || collectives.back().state == "completed") return nullptr;
  return &collectives.back();
}

const PublishedCollective* RankState::last_completed() const {
  for (auto it = collectives.rbegin(); it != collectives.rend(); ++it)
    if (it->state == "completed") return &*it;
  return nullptr;
}

std::string encode_rank_state(const CollectiveLedger& ledger, int rank, bool stalled) {
  const double now_unix = unix_seconds_now();
  // A ledger time as Unix seconds.
  const double offset = now_unix - ledger.seconds_now();
  const RankActivity activity = ledger.activity();
  std::string text =
      fmt::format("rank\t{}\t{}\t{}\t{:.3f}\t{:.3f}\t{}\n", rank, phase_name(activity.phase),
                  activity.step, offset + activity.since_s, now_unix, stalled ? 1 : 0);
  for (const auto& group : ledger.group_counts())
    text += fmt::format("group\t{}\t{}\t{}\n", field(group.name), fmt::join(group.ranks, ","),
                        group.sequence);
  for (const CollectiveEntry& e : ledger.newest_entries(kPublishedCollectives)) {
    text +=
        fmt::format("collective\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.3f}\t{}\n",
                    field(ledger.group_name(e.group)), e.sequence, e.op, e.dtype.data(), e.elements,
                    e.step, state_name(e.state), offset + e.issued_s, field(entry_text(ledger, e)));
  }
  return text;
}

std::optional<RankState> decode_rank_state(const std::string& text) {
  RankState state;
  bool has_rank_line = false;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const std::vector<std::string> f = split(line, '\t');
    if (f.empty()) return std::nullopt;
    bool ok = false;
    if (f[0] == "rank") ok = has_rank_line = decode_rank_line(f, state);
    if (f[0] == "group") ok = decode_group_line(f, state);
    if (f[0] == "collective") ok = decode_collective_line(f, state);
    if (!ok) return std::nullopt;
  }
  if (!has_rank_line) return std::nullopt;
  return state;
}

}  // namespace runner::distributed
