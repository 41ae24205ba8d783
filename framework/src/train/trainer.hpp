// Trains one resolved run: builds its components from the registry, runs the epochs, and
// records every epoch in the results file as soon as it ends.
#pragma once

#include "checkpoint/settings.hpp"
#include "config/experiment.hpp"
#include "plugin_host/registry.hpp"
#include "record/console.hpp"
#include "results/results.hpp"
#include "train/rank_context.hpp"

namespace runner::train {

// Throws runner::Error when the run cannot finish; what finished is already recorded.
// `checkpoint_settings`: when it saves, and the checkpoint it resumes from. On
// several ranks every rank calls it: each trains its shard, metrics are summed over the
// ranks, and what each rank records is the same (rank 0's writer is the file's).
results::Summary train_run(const config::RunConfig& run, const plugin_host::Registry& registry,
                           record::Console& console, results::RunWriter& writer,
                           const RankContext& ranks = {},
                           const checkpoint::CheckpointSettings& checkpoint_settings = {});

}  // namespace runner::train
