// Calls for the collective ledger's tests: a collective of `elements` floats (4 bytes each).
#pragma once

#include <cstdint>
#include <string>

#include "distributed/collective_ledger.hpp"

namespace runner::distributed {

inline CollectiveLedger::Call float_call(int group, const char* op, int64_t elements,
                                         const std::string* words = nullptr) {
  return {group, op, "Float", elements, elements * 4, words};
}

}  // namespace runner::distributed
