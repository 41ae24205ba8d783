// The [train] techniques (micro-batches, precision, activation checkpointing, loss scaling,
// clipping) as the strategies receive them.
#pragma once

#include "runner/options.hpp"
#include "runner/techniques.hpp"

namespace runner::config {

Techniques techniques_of(const Options& train);

}  // namespace runner::config
