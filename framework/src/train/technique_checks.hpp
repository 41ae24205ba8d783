// The checks that refuse an impossible combination of [train]'s techniques before any rank
// starts.
#pragma once

#include "config/experiment.hpp"

namespace runner::train {

// Throws ConfigError naming the key to change: micro-batches that do not divide a rank's
// share of the batch (the message shows the arithmetic), fp16 on a CPU run.
void check_techniques(const config::RunConfig& run, int world_size);

}  // namespace runner::train
