// [train] typed: what the trainer, the run plan and the checks read of it, resolved once
// when the run is, beside the section's keys as validated.
#pragma once

#include <cstdint>
#include <string>

#include "runner/options.hpp"
#include "runner/techniques.hpp"

namespace runner::config {

struct TrainSettings {
  Options keys;  // every [train] key, defaults filled in: the resolved TOML and dotted look-ups
  int64_t epochs = 1;
  int64_t batch_size = 64;  // over all ranks
  int64_t test_batch_size = 1000;
  std::string device = "cpu";      // "cpu", "cuda" or "auto"
  int64_t threads = 0;             // intra-op threads per rank; 0: the number of cores
  double memory_budget_gib = 0.0;  // 0: no budget
  double peak_tflops = 0.0;        // 0: known GPUs by name
  int64_t num_workers = 0;
  int64_t prefetch = 2;
  bool pin_memory = true;
  int64_t log_every = 50;
  int64_t max_steps_per_epoch = 0;  // 0: no limit
  int64_t max_eval_steps = 0;       // 0: the whole test set
  bool deterministic = false;
  bool vendor_conv = true;  // backend_conv = "vendor" (oneDNN, cuDNN); false: ATen's own kernels
  int64_t collective_ledger_entries = 4096;  // kept per rank; 0: none
  int64_t max_restarts = 0;                  // of a failed run's ranks; 0: none
  int64_t stall_timeout_s = 1800;            // a rank without progress gives up; 0: never
  bool check_collectives = false;            // members compare each call before it runs
  Techniques techniques;                     // what the strategies receive
};

// `keys`: a [train] section validated against its schema, so every key is there.
TrainSettings train_settings_of(const Options& keys);

}  // namespace runner::config
