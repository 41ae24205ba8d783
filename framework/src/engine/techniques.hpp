// The [train] techniques (micro-batches, precision, activation checkpointing, clipping) as the
// strategies receive them, and the checks that refuse an impossible combination before any
// rank starts.
#pragma once

#include <runner/techniques.hpp>

#include "config/experiment.hpp"

namespace runner::engine {

Techniques techniques_of(const Options& train);

// Throws ConfigError naming the key to change: micro-batches that do not divide a rank's
// share of the batch (the message shows the arithmetic), fp16 on a CPU run.
void check_techniques(const config::RunConfig& run, int world_size);

}  // namespace runner::engine
