// Gradient accumulation's split: a rank's batch cut along dim 0 into micro-batches, each
// weighted by its share of the rows, so that the weighted sum of the micro-batches' mean
// losses is the mean loss of the whole batch (and so are the summed gradients).
#pragma once

#include <runner/dataset.hpp>

#include <vector>

namespace runner::strategies {

struct MicroBatch {
  Batch batch;
  double weight = 1.0;  // rows of this micro-batch / rows of the batch
};

// At most `count` micro-batches of consecutive rows, the first ones a row longer when the
// rows do not divide (an epoch's last, short batch); never an empty one.
std::vector<MicroBatch> split_micro_batches(const Batch& batch, int64_t count);

}  // namespace runner::strategies
