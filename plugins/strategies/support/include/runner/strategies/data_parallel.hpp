// What every data-parallel strategy (ddp, zero, a pipeline's replicas) does alike: start its
// replicas from rank 0's weights, and split each epoch's samples among them.
#pragma once

#include <runner/runner.hpp>

namespace runner::strategies {

// Rank 0's parameters and buffers copied to every rank of `ranks`: whatever each rank's
// initialization drew, the replicas start identical.
void broadcast_from_rank_zero(Model& model, Communicator& ranks);

// Replica `replica` of `replicas`: for training DistributedSampler's shard (equal counts on
// every replica, the tail padded with the first samples or dropped, so every rank takes the
// same number of steps); for testing each sample once, so the summed metrics are exact.
torch::Tensor replica_samples(const torch::Tensor& order, Split split, int replica, int replicas,
                              bool drop_last);

}  // namespace runner::strategies
