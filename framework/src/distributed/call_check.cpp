// The comparison of the members' calls before a collective, and the error that names both.
#include "distributed/call_check.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace runner::distributed {
namespace {

// FNV-1a of a name, kept positive: the same on every member.
int64_t name_number(const std::string& name) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : name) hash = (hash ^ c) * 1099511628211ull;
  return static_cast<int64_t>(hash >> 1);
}

CallMismatch compare(const int64_t* a, const int64_t* b) {
  if (a[0] != b[0]) return CallMismatch::op;
  if (a[1] != b[1]) return CallMismatch::dtype;
  if (a[2] != b[2]) return CallMismatch::size;
  return CallMismatch::none;
}

std::string call_key(const CallMismatchSite& site, int member) {
  return fmt::format("call/{}/{}", site.sequence, member);
}

}  // namespace

std::vector<int64_t> call_print(const char* op, const std::string& dtype, int64_t elements) {
  return {name_number(op), name_number(dtype), elements};
}

const char* mismatch_text(CallMismatch mismatch) {
  switch (mismatch) {
    case CallMismatch::op: return "different collectives";
    case CallMismatch::dtype: return "different dtypes";
    case CallMismatch::size: return "different sizes";
    case CallMismatch::none: break;
  }
  return "the same calls";
}

std::optional<OddMember> odd_member(const std::vector<int64_t>& prints, int self) {
  const auto members = static_cast<int>(prints.size() / kCallPrintSize);
  const int64_t* first = prints.data();
  const int64_t* mine = first + self * kCallPrintSize;
  if (const CallMismatch m = compare(first, mine); m != CallMismatch::none) return OddMember{0, m};
  for (int r = 1; r < members; ++r)
    if (const CallMismatch m = compare(first, first + r * kCallPrintSize); m != CallMismatch::none)
      return OddMember{r, m};
  return std::nullopt;
}

std::string mismatch_message(c10d::Store& store, const CallMismatchSite& site,
                             CallMismatch mismatch) {
  store.set(call_key(site, site.self),
            std::vector<uint8_t>(site.self_text.begin(), site.self_text.end()));
  const std::vector<uint8_t> other = store.get(call_key(site, site.other));
  const std::string other_text(other.begin(), other.end());
  const bool self_first = site.self_run_rank < site.other_run_rank;
  const int low = std::min(site.self_run_rank, site.other_run_rank);
  const int high = std::max(site.self_run_rank, site.other_run_rank);
  // Sizes as the ledger gives them round to the unit; the element counts tell them apart.
  const std::string counts =
      mismatch != CallMismatch::size
          ? ""
          : fmt::format(" ({} and {} elements)",
                        self_first ? site.self_elements : site.other_elements,
                        self_first ? site.other_elements : site.self_elements);
  return fmt::format("ranks {} and {} called {}{} as #{} of {}: rank {} {}; rank {} {}", low, high,
                     mismatch_text(mismatch), counts, site.sequence, site.group, low,
                     self_first ? site.self_text : other_text, high,
                     self_first ? other_text : site.self_text);
}

}  // namespace runner::distributed
