// What multi-rank strategies share: the [strategy] keys the host reads to launch and connect
// the ranks, and DistributedSampler's split of an epoch's samples among them.
#pragma once

#include <torch/types.h>

#include "runner/errors.hpp"
#include "runner/options.hpp"

namespace runner {

// A strategy whose schema has these keys runs on several ranks: the host starts
// `world_size` processes (or takes torchrun's or Slurm's) and connects them with `backend`.
inline void add_distributed_keys(Schema& schema) {
  schema.integer("world_size", 0,
                 "Ranks (processes) of the run; 0: the launcher's under torchrun or srun, else "
                 "one per GPU of this machine (one rank without GPUs); `runner --nproc N` sets N",
                 0, 4096);
  schema.text("backend", "gloo",
              "Collectives: gloo (CPU and CUDA tensors) or nccl (CUDA builds, one GPU per rank)",
              {"gloo", "nccl"});
  schema.integer("timeout_s", 300,
                 "Seconds a rendezvous or a collective waits for the other ranks before the run "
                 "fails naming the rank that did not answer",
                 1, 86400);
}

// This rank's part of `order` (a permutation of the split): every world_size-th sample from
// position `rank`, so that step k of all ranks together covers the samples a single process
// would take at step k. With drop_tail the last order.size(0) % world_size samples go;
// without, the first ones are repeated so every rank gets the same count.
inline torch::Tensor shard_for_rank(const torch::Tensor& order, int rank, int world_size,
                                    bool drop_tail) {
  RUNNER_CHECK(rank >= 0 && rank < world_size, "rank outside the world");
  const int64_t n = order.size(0);
  const int64_t per_rank = drop_tail ? n / world_size : (n + world_size - 1) / world_size;
  const int64_t total = per_rank * world_size;
  torch::Tensor padded = order;
  if (total > n) {
    const int64_t missing = total - n;
    // A split smaller than the world repeats itself as often as needed.
    padded = torch::cat({order, order.repeat({(missing + n - 1) / n}).slice(0, 0, missing)});
  }
  return padded.slice(0, rank, total, world_size);
}

}  // namespace runner
