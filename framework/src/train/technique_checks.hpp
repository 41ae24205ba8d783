// The checks that refuse an impossible combination of [train]'s techniques before any rank
// starts.
#pragma once

#include "config/experiment.hpp"

namespace runner::train {

// Throws ConfigError naming the key to change: micro-batches that do not divide the share of
// the batch of each of the `replicas` data-parallel replicas (the message shows the
// arithmetic; a pipeline's stages or a tensor group's ranks share one), fp16 on a CPU run.
void check_techniques(const config::RunConfig& run, int replicas);

}  // namespace runner::train
