// Gradient accumulation's split: a rank's batch cut along dim 0 into micro-batches, each
// weighted by its share of the rows, so that the weighted sum of the micro-batches' mean
// losses is the mean loss of the whole batch (and so are the summed gradients); and their
// predictions joined back into the batch's.
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

// A micro-batch's mean loss times its weight, so that the summed gradients are those of the
// whole batch's mean loss; `of` micro-batches in all (one: the loss as it is).
torch::Tensor weighted_loss(const torch::Tensor& loss, const MicroBatch& micro, size_t of);

// (N) or (N, T): the predicted class of each output row (the last dimension's argmax).
torch::Tensor predictions_of(const torch::Tensor& outputs);
// The micro-batches' predictions as the batch's, in order.
torch::Tensor joined_predictions(const std::vector<torch::Tensor>& predictions);

}  // namespace runner::strategies
