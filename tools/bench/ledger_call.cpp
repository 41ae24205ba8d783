// The collective ledger's cost per call: issued()+ended() of a collective and enter() of a phase,
// timed over many calls on one thread (tools/bench/ledger_call.sh builds and runs it).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "distributed/collective_ledger.hpp"

namespace {

using runner::distributed::CollectiveLedger;
using runner::distributed::RunPhase;
using Clock = std::chrono::steady_clock;

// Nanoseconds per pass of `body`, over `calls` passes.
template <typename Body>
double nanoseconds_per_call(int64_t calls, Body body) {
  const auto start = Clock::now();
  for (int64_t i = 0; i < calls; ++i) body(i);
  const std::chrono::duration<double, std::nano> spent = Clock::now() - start;
  return spent.count() / static_cast<double>(calls);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// A ddp gradient bucket's all-reduce: issued, then ended when its wait returns.
double collective_ns(CollectiveLedger& ledger, int group, int64_t calls) {
  const CollectiveLedger::Call call{group, "allreduce", "float32", 262144, 1048576, nullptr};
  return nanoseconds_per_call(calls, [&](int64_t) { ledger.ended(ledger.issued(call), true); });
}

// A step's phase change, as the training loop marks forward, backward and the optimizer.
double phase_ns(CollectiveLedger& ledger, int64_t calls) {
  return nanoseconds_per_call(calls, [&](int64_t i) { ledger.enter(RunPhase::forward, i); });
}

}  // namespace

int main(int argc, char** argv) {
  const size_t capacity = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 4096;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 7;
  const int64_t calls = 1000000;
  CollectiveLedger ledger(capacity);
  const int group = ledger.add_group("world", {0, 1});
  std::vector<double> collectives, phases;
  std::printf("%-6s %22s %18s\n", "round", "issued+ended (ns)", "enter (ns)");
  for (int round = 1; round <= rounds; ++round) {
    collectives.push_back(collective_ns(ledger, group, calls));
    phases.push_back(phase_ns(ledger, calls));
    std::printf("%-6d %22.1f %18.1f\n", round, collectives.back(), phases.back());
  }
  std::printf("%-6s %22.1f %18.1f\n", "median", median(collectives), median(phases));
  return 0;
}
