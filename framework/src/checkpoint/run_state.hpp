// The host's state of a run in a checkpoint's manifest (its "engine" fields and progress),
// checked before a resume trusts it: a manifest edited or written by another runner is named,
// field by field, instead of training "epoch -5 of 4".
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "checkpoint/manifest.hpp"
#include "checkpoint/reader.hpp"

namespace runner::checkpoint {

// The key of rank `rank`'s own entry `name` (its random generators, its pass's metrics).
std::string rank_entry(int rank, const std::string& name);

// Throws DataError naming the folder and the field when an engine field is missing or of
// another type, or disagrees with the manifest's progress (the epochs recorded before the
// epoch in progress, the steps recorded before its pass), or a rank of the manifest's world
// has no entries in the shards.
void check_engine_state(const CheckpointReader& reader);

// Throws DataError naming the folder when the checkpoint stands past this run: an epoch after
// its `epochs`, or, once the run knows its `steps_per_epoch`, more steps in the epoch than
// that or more steps in all.
void check_progress_fits(const Manifest& manifest, const std::string& folder, int64_t epochs,
                         std::optional<int64_t> steps_per_epoch);

}  // namespace runner::checkpoint
