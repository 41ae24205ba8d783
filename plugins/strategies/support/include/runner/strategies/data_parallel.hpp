// What every data-parallel strategy (ddp, zero, a pipeline's replicas) does alike: declare the
// keys of a multi-rank table, start its replicas from rank 0's weights, and split each epoch's
// samples among them.
#pragma once

#include <runner/option_fields.hpp>
#include <runner/runner.hpp>
#include <string>

namespace runner::strategies {

// The host's keys of a multi-rank strategy's table (world_size, backend, timeout_s): the host
// reads them, the strategy lists them first.
Schema distributed_keys();

// `drop_last`, bound to the options' member of that name; `among` names what the samples are
// divided among ("the ranks", "the pipelines").
template <typename T>
OptionFields<T>& add_drop_last(OptionFields<T>& fields, const std::string& among) {
  return fields.flag("drop_last", &T::drop_last,
                     "Drop the samples that do not divide among " + among +
                         " instead of repeating the first ones");
}

// Rank 0's parameters and buffers copied to every rank of `ranks`: whatever each rank's
// initialization drew, the replicas start identical.
void broadcast_from_rank_zero(Model& model, Communicator& ranks);

// Replica `replica` of `replicas`: for training DistributedSampler's shard (equal counts on
// every replica, the tail padded with the first samples or dropped, so every rank takes the
// same number of steps); for testing each sample once, so the summed metrics are exact.
torch::Tensor replica_samples(const torch::Tensor& order, Split split, int replica, int replicas,
                              bool drop_last);

}  // namespace runner::strategies
