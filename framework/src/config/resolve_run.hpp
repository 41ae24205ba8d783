// One run's sections, validated: host sections against the host's schemas, components against
// the schema of the plugin component their `name` selects.
#pragma once

#include <string>

#include "config/experiment.hpp"
#include "config/raw_config.hpp"
#include "config/schema_source.hpp"

namespace runner::config {

// Every field of RunConfig except id, label, sweep_point and resolved_toml.
RunConfig resolve_run(const RawSections& given, const std::string& file,
                      const SchemaSource& schemas);

}  // namespace runner::config
