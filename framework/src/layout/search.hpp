// The layout search of `runner plan`: every layout of the experiment's run on the devices,
// those the checks refuse counted by reason, the others planned (memory per rank, without
// building the model when it has an estimator) and those that fit ranked by predicted step time.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "config/experiment.hpp"
#include "layout/layouts.hpp"
#include "layout/rates.hpp"
#include "layout/step_cost.hpp"
#include "plan/estimate.hpp"
#include "plugin_host/registry.hpp"

namespace runner::layout {

struct SearchRequest {
  std::string text;                    // the experiment file's TOML
  std::string file;                    // its path, for messages
  std::vector<std::string> overrides;  // --set
  Devices devices;
  double memory_per_device = 0;  // bytes a rank's plan may reach
};

struct Candidate {
  Layout layout;
  config::RunConfig run;
  plan::RunEstimate estimate;
  StepCost cost;
  double samples_per_s = 0;
};

struct Search {
  size_t layouts = 0;
  std::vector<std::pair<std::string, size_t>> refused;  // reason, layouts; most first
  std::vector<Candidate> over_memory;                   // smallest plan first
  // Offloading layouts whose twin without the offload fits: an offload only saves memory.
  size_t needless_offloads = 0;
  std::vector<Candidate> fitting;  // fastest predicted first
};

Search search_layouts(const SearchRequest& request, const plugin_host::Registry& registry,
                      const Rates& rates);

// The ConfigError for a search where nothing fits: the smallest plan, by how much it is over,
// and the key that would shrink what dominates it.
ConfigError nothing_fits(const Search& search, const SearchRequest& request);

}  // namespace runner::layout
