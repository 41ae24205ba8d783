// What one run holds while it trains, and how it is built: the dataset, loading, model,
// strategy, schedule and plan, from the resolved run and the registry. The passes
// (train/passes.hpp) and the epochs (train/trainer.cpp) work on it.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "augment/augmentation.hpp"
#include "config/experiment.hpp"
#include "measure/cpu_memory.hpp"
#include "measure/run_measures.hpp"
#include "plugin_host/call_plugin.hpp"
#include "plugin_host/op_library.hpp"
#include "plugin_host/registry.hpp"
#include "record/console.hpp"
#include "results/results.hpp"
#include "train/fault_injection.hpp"
#include "train/metrics.hpp"
#include "train/optimizers.hpp"
#include "train/rank_context.hpp"

namespace runner::train {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The data side of a run: the dataset, its augmentation and the loader threads.
struct Loading {
  std::shared_ptr<Dataset> dataset;
  DatasetInfo info;
  augment::Augmentation augmentation;
  int64_t num_workers = 0, prefetch = 1;
  bool pin_memory = false;
};

// The shape of a run's epochs: how many, how long, what each rank reports, the LR schedule.
struct Loop {
  int64_t epochs = 1, steps_per_epoch = 0, log_every = 1;
  int64_t max_eval_steps = 0;  // a test pass's batches on each rank; 0: all of its shard
  // A test pass's batches on every rank, its shard's last one taking a sample more where
  // shards differ by one: a sharded model gathers its parameters in each, on every rank.
  int64_t test_batches = 0;
  int64_t batch_size = 1;  // this rank's: train.batch_size / the data-parallel degree
  bool reports = true;     // this rank's steps give the loss and predictions
  int reporting_ranks = 1;
  std::unique_ptr<LearningRateSchedule> schedule;
};

// How far a run has come: what a checkpoint keeps besides the model and the measures.
struct Progress {
  int64_t global_step = 0;
  std::vector<double> last_per_class;  // of the latest test pass
};

// Everything one run holds while it trains.
struct Session {
  const config::RunConfig& run;
  record::Console& console;
  results::RunWriter& writer;
  const RankContext& ranks;
  // Before the run's tensors, so it goes after them.
  measure::CpuBlocksKeptForARun kept_blocks;
  torch::Device device = torch::kCPU;
  int threads = 1;
  int64_t seed = 0;
  std::unique_ptr<plugin_host::RegistryOpLibrary> ops;
  std::shared_ptr<Model> model;
  std::shared_ptr<Strategy> strategy;
  Techniques techniques;
  std::string step_components;  // the plugins a step runs, for error messages
  Loading loading;
  Loop loop;
  Progress progress;
  measure::RunMeasures measures;
  FaultInjector faults;  // [fault], where it strikes this rank
};

// Runs plugin code of a step: a LibTorch or other exception becomes one line naming the
// plugins involved; runner errors pass as they are.
template <typename F>
auto in_plugin_code(const Session& s, const std::string& what, F&& f) {
  try {
    return f();
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw PluginError(what + " failed: " + one_line(e), s.step_components);
  }
}

// Builds every component of the run on this rank, the strategy set up.
void build_session(Session& s, const plugin_host::Registry& registry);

// What the rank does from now on, for a report of a failed or hung run; `step` from 1.
void enter(const Session& s, distributed::RunPhase phase);
void enter(const Session& s, distributed::RunPhase phase, int64_t step);

// `t` summed over the ranks (itself on one rank), on the run's device: NCCL takes no other.
// `words`: what the sum is for, in the rank's ledger.
torch::Tensor sum_over_ranks(const Session& s, const torch::Tensor& t, const std::string& words);
// A pass's sums over the ranks.
void sum_over_ranks(const Session& s, PassMetrics& metrics);
// (world_size) each rank's `value`, on every rank.
std::vector<double> per_rank(const Session& s, double value);

}  // namespace runner::train
