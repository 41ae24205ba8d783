// Datasets built once per identity (component, resolved keys, seed) for the checks and plans
// that run before training: a sweep of 10,000 points over the model reads its data once.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "config/experiment.hpp"
#include "plugin_host/registry.hpp"

namespace runner::plan {

class DatasetCache {
 public:
  explicit DatasetCache(const plugin_host::Registry& registry) : registry_(registry) {}

  // The run's dataset, built on first use; a dataset that failed to build throws the same
  // error again for every run that resolves it alike.
  Dataset& get(const config::RunConfig& run);

 private:
  struct Built {
    std::shared_ptr<Dataset> dataset;
    std::optional<Error> error;
  };

  const plugin_host::Registry& registry_;
  std::map<std::string, Built> built_;
};

}  // namespace runner::plan
