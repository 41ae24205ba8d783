// The environment's thread counts, checked before a library starts its threads.
#include "machine/thread_variables.hpp"

#include <cstdlib>
#include <sstream>

namespace runner::machine {
namespace {

bool whole_count(const std::string& text) {
  if (text.empty() || text.size() > 9) return false;
  for (const char c : text)
    if (c < '0' || c > '9') return false;
  const long count = std::strtol(text.c_str(), nullptr, 10);
  return count >= 1 && count <= kMostThreads;
}

// OMP_NUM_THREADS may list a count per nesting level ("4,2"); the others hold one.
bool fine(const std::string& value, bool list) {
  if (!list) return whole_count(value);
  std::istringstream counts(value);
  std::string count;
  while (std::getline(counts, count, ','))
    if (!whole_count(count)) return false;
  return value.back() != ',';
}

}  // namespace

std::optional<std::string> thread_variable_problem(
    const std::function<const char*(const char*)>& variable) {
  for (const char* name :
       {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "MKL_NUM_THREADS"}) {
    const char* value = variable(name);
    if (value == nullptr || *value == '\0') continue;
    const std::string text = value;
    if (fine(text, std::string(name) == "OMP_NUM_THREADS")) continue;
    const std::string shown = text.size() > 40 ? text.substr(0, 40) + "..." : text;
    return std::string(name) + "=" + shown + ": a thread count must be a whole number from 1 to " +
           std::to_string(kMostThreads);
  }
  return std::nullopt;
}

}  // namespace runner::machine
