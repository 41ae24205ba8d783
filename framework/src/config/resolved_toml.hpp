// A run's resolved config as TOML text (what the results file stores) and the run id hashed
// from it.
#pragma once

#include <string>

#include "config/experiment.hpp"

namespace runner::config {

// Every section with every key, sections and keys sorted (a component's name first), so the
// same config always gives the same text; the [[dataset.augment]] tables follow [dataset] in
// their own order. Parsing it again gives the same run.
std::string resolved_toml(const RunConfig& run);

// The text the run id hashes: what the run trains. resolved_toml without [checkpoint] and
// [experiment] results, tensorboard, table, description and plan_step_s: where the run's
// outputs go and how they are shown.
std::string id_text(const RunConfig& run);

// The text runs' ids hashed in files written before they left out [experiment] results, table
// and description (so that such files still resume): id_text with those three.
std::string earlier_id_text(const RunConfig& run);

// 12 lowercase hex digits: the top 48 bits of the 64-bit FNV-1a hash of `resolved`.
std::string run_id(const std::string& resolved);

}  // namespace runner::config
