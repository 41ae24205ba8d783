// The thread counts the environment gives the libraries runner loads (OMP_NUM_THREADS and its
// kin), checked before any of them starts a thread: OpenMP starts as many as it is told at its
// first parallel region, and OMP_NUM_THREADS=100000 crashed the process there (SIGSEGV), while
// 0 or a word made LibTorch print warnings and traces before runner's own line.
#pragma once

#include <cstdlib>
#include <functional>
#include <optional>
#include <string>

namespace runner::machine {

// The most threads a variable may ask for: the bound of [train] threads.
inline constexpr long kMostThreads = 1024;

// What to do about a thread count the environment sets wrong.
inline constexpr const char* kThreadVariableHint =
    "unset it: runner sets each rank's threads from [train] threads (default: the cores)";

// The variables read, in order: OMP_NUM_THREADS (a list, one count per nesting level),
// OPENBLAS_NUM_THREADS, GOTO_NUM_THREADS, MKL_NUM_THREADS.
// The first one set to anything but whole numbers from 1 to kMostThreads, as one line:
// "OMP_NUM_THREADS=100000: a thread count must be a whole number from 1 to 1024"; nullopt when
// each is unset, empty or fine. `variable` reads one (std::getenv by default).
std::optional<std::string> thread_variable_problem(
    const std::function<const char*(const char*)>& variable = [](const char* name) {
      return static_cast<const char*>(std::getenv(name));
    });

}  // namespace runner::machine
