// The rates of Gloo's collectives between CPU ranks on this machine, measured with runner's own
// communicator: two ranks in two threads of this process, over the loopback.
#pragma once

#include <cstdint>

namespace runner::layout {

// Bytes per second that each collective moves per rank, as the step-time model counts them
// (a ring's (n - 1) / n of the gathered or scattered bytes; twice that for an all-reduce).
struct CollectiveRates {
  double all_reduce = 0;
  double all_gather = 0;
  double reduce_scatter = 0;
};

// Measured on `bytes` of fp32 per rank, each collective the best of three after one.
// Throws RunError when the two ranks cannot connect.
CollectiveRates measure_gloo_collectives(int64_t bytes);

}  // namespace runner::layout
