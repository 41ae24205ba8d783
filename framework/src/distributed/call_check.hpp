// train.check_collectives: before each collective the members of its group compare what they
// are about to call (op, type, element count) through a small all-gather, and a member that
// called something else is an error at once, naming both calls, instead of a hang.
#pragma once

#include <torch/csrc/distributed/c10d/Store.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace runner::distributed {

// What a call is, as numbers every member can compare: (op, dtype, elements).
inline constexpr int64_t kCallPrintSize = 3;
std::vector<int64_t> call_print(const char* op, const std::string& dtype, int64_t elements);

// The element count in member `member`'s print among `prints`.
inline int64_t elements_of(const std::vector<int64_t>& prints, int member) {
  return prints.at(static_cast<size_t>(member * kCallPrintSize + 2));
}

enum class CallMismatch { none, op, dtype, size };
// "different collectives", "different dtypes", "different sizes".
const char* mismatch_text(CallMismatch mismatch);

struct OddMember {
  int member = 0;  // its place in the group
  CallMismatch mismatch = CallMismatch::none;
};
// `prints`: every member's call_print(), in group order. The first member whose call differs
// from member 0's (or, when this one differs from member 0's, member 0); nullopt when all agree.
std::optional<OddMember> odd_member(const std::vector<int64_t>& prints, int self);

struct CallMismatchSite {
  std::string group;        // the group's name ("world")
  uint64_t sequence = 0;    // the collective's number in it
  int self = 0, other = 0;  // places in the group
  int self_run_rank = 0, other_run_rank = 0;
  int64_t self_elements = 0, other_elements = 0;
  std::string self_text;  // this member's call, as its ledger names it
};
// Publishes this member's call in `store` (the group's), reads the other's (waiting for it),
// and returns the error's line: "ranks 0 and 1 called different sizes (4 and 5 elements) as #12
// of world: rank 0 all_reduce #12 of world (...); rank 1 all_reduce #12 of world (...)".
std::string mismatch_message(c10d::Store& store, const CallMismatchSite& site,
                             CallMismatch mismatch);

}  // namespace runner::distributed
