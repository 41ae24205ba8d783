// The checks that refuse an impossible combination of [train]'s batch and techniques before
// any rank starts.
#pragma once

#include "config/experiment.hpp"

namespace runner::train {

// Throws ConfigError naming the key to change: micro-batches that do not divide the share of
// the batch of each of the `replicas` data-parallel replicas (the message shows the
// arithmetic; a pipeline's stages or a tensor group's ranks share one), fp16 on a CPU run.
void check_techniques(const config::RunConfig& run, int replicas);

// Throws ConfigError when train.batch_size, the global batch, does not divide among
// `world_size` ranks.
void check_batch_divides(const config::RunConfig& run, int world_size);

}  // namespace runner::train
