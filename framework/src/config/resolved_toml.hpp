// A run's resolved config as TOML text (what the results file stores) and the run id hashed
// from it.
#pragma once

#include <string>

#include "config/experiment.hpp"

namespace runner::config {

// Every section with every key, sections and keys sorted (a component's name first), so the
// same config always gives the same text; the [[dataset.augment]] tables follow [dataset] in
// their own order. Parsing it again gives the same run.
// Without [checkpoint] and [experiment] tensorboard (where the run saves and logs, not what it
// trains) where `with_places` is false: the text the run id hashes.
std::string resolved_toml(const RunConfig& run, bool with_places = true);

// 12 lowercase hex digits: the top 48 bits of the 64-bit FNV-1a hash of `resolved`.
std::string run_id(const std::string& resolved);

}  // namespace runner::config
