// split_micro_batches: consecutive row ranges of a batch, each weighted by its share of the rows.
#include "runner/strategies/micro_batches.hpp"

#include <runner/errors.hpp>

#include <algorithm>

namespace runner::strategies {

std::vector<MicroBatch> split_micro_batches(const Batch& batch, int64_t count) {
  RUNNER_CHECK(count >= 1, "micro-batch count below 1");
  const int64_t rows = batch.inputs.size(0);
  const int64_t pieces = std::min(count, rows);
  std::vector<MicroBatch> micro;
  micro.reserve(static_cast<size_t>(pieces));
  int64_t start = 0;
  for (int64_t i = 0; i < pieces; ++i) {
    const int64_t length = rows / pieces + (i < rows % pieces ? 1 : 0);
    micro.push_back({{batch.inputs.narrow(0, start, length), batch.targets.narrow(0, start, length)},
                     static_cast<double>(length) / static_cast<double>(rows)});
    start += length;
  }
  return micro;
}

}  // namespace runner::strategies
