// An experiment file resolved: TOML parsed, --set overrides applied, the [sweep] expanded, and
// every table validated against the schema of its owner (the host or a plugin).
#pragma once

#include <string>
#include <vector>

#include "config/experiment.hpp"
#include "config/schema_source.hpp"

namespace runner::config {

// Reads `path`, applies `overrides` ("dotted.key=value", typed by the schema, later ones win),
// expands the sweep and validates each run. Throws ConfigError naming file:line:column, the
// key, the known keys and a "did you mean" when one is close.
Experiment load_experiment(const std::string& path, const std::vector<std::string>& overrides,
                           const SchemaSource& schemas);

// The same, from text; `name` stands for the file in messages.
Experiment parse_experiment(const std::string& text, const std::string& name,
                            const std::vector<std::string>& overrides, const SchemaSource& schemas);

// The same with its [strategy] replaced, as a layout search tries one: `strategy` with
// `strategy_overrides` ("strategy.stage=2"), applied after `overrides`. Of the file's
// [strategy] keys only those `strategy` declares stay (backend, timeout_s): another
// strategy's keys would be unknown to it.
Experiment parse_with_strategy(const std::string& text, const std::string& name,
                               const std::vector<std::string>& overrides,
                               const std::string& strategy,
                               const std::vector<std::string>& strategy_overrides,
                               const SchemaSource& schemas);

}  // namespace runner::config
