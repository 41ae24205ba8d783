// What a run would hold in memory, worked out without training it: the model's parameters
// and the bytes of its weights, gradients and optimizer state. `runner --dry-run` prints it.
#pragma once

#include <cstdint>
#include <string>

#include "config/experiment.hpp"
#include "plugin_host/registry.hpp"

namespace runner::engine {

struct RunEstimate {
  int64_t parameters = 0;
  double forward_flops_per_sample = 0;
  bool from_options = false;  // the model's estimator; else counted on the built model
  std::string optimizer;
  double weight_bytes = 0, gradient_bytes = 0, optimizer_state_bytes = 0;

  double total_bytes() const { return weight_bytes + gradient_bytes + optimizer_state_bytes; }
};

// Builds the dataset (for its shapes), then asks the model's estimator, or builds the model
// when it has none. Throws what building them throws.
RunEstimate estimate_run(const config::RunConfig& run, const plugin_host::Registry& registry);

// fp32 tensors the optimizer keeps per parameter: 2 for adam/adamw, 1 for sgd with momentum.
int optimizer_states_per_parameter(const Options& optimizer);

// One line: "1,557,611,200 parameters (from the model's options); fp32 weights 5.80 GiB, ...".
std::string estimate_text(const RunEstimate& estimate);

// 1557611200 -> "1,557,611,200".
std::string with_thousands(int64_t n);

}  // namespace runner::engine
