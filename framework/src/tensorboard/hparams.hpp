// What TensorBoard's HParams tab reads: the experiment (each swept key, its type and values;
// the final metrics) and each run's session (its swept values, at start; its status, at end).
// The plugin data is an HParamsPluginData in a summary value of a reserved tag.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "results/results.hpp"
#include "tensorboard/events.hpp"

namespace runner::tensorboard {

using SweepPoint = std::vector<std::pair<std::string, results::SweepValue>>;

// A key whose values are all booleans is a bool, all numbers a float64, else a string (its
// values as their TOML text).
enum class HParamType { boolean, number, text };
using HParamTypes = std::map<std::string, HParamType>;
HParamTypes hparam_types(const std::vector<SweepPoint>& points);

// The tags of the run summary's scalars (final/...), the experiment's metrics.
std::vector<Scalar> final_scalars(const results::Summary& summary);

proto::Event experiment_event(const std::string& name, const std::vector<SweepPoint>& points,
                              double wall_time);
// `group`: sessions of one group share their values (repeats of one config).
proto::Event session_start_event(const SweepPoint& point, const HParamTypes& types,
                                 const std::string& group, double wall_time);
// completed: success, failed: failure, skipped: unknown.
proto::Event session_end_event(results::Status status, int64_t step, double wall_time);

}  // namespace runner::tensorboard
