// What a run measures beside its training: time per phase of a step, memory per rank, GPU
// readings and the plan it was estimated at; each epoch's measured fields and the summary's.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "measure/gpu_monitor.hpp"
#include "measure/rank_memory.hpp"
#include "measure/step_meter.hpp"
#include "results/results.hpp"
#include "runner/plan.hpp"

namespace runner::measure {

// (world_size) each rank's `value`, gathered on every rank: a collective, so every rank calls
// it at the same point.
using PerRank = std::function<std::vector<double>(double value)>;

// What a checkpoint keeps, so that a resumed run's summary counts the epochs before it.
struct MeasuredSoFar {
  double train_compute_s = 0;
  int64_t train_samples = 0;
  std::vector<double> peak_memory_per_rank;   // the largest of each rank over the epochs
  std::vector<double> tensor_peak_per_rank;   // the same, of the tensors
  std::vector<double> state_memory_per_rank;  // tensors held after the latest training pass
};

struct RunMeasures {
  torch::Device device = torch::kCPU;
  int world_size = 1;
  PerRank per_rank;
  // Seconds this rank has waited in its collectives so far; NaN where not measured.
  std::function<double()> waited;
  std::shared_ptr<HostStepMeter> meter;
  std::unique_ptr<RankMemory> memory;
  std::unique_ptr<GpuMonitor> gpu;  // nullptr when not measured
  RunPlan plan;  // what each rank was planned to hold; no ranks when no plan could be made
  // The model's, counted before the strategy may shard its parameters away.
  int64_t parameters = 0;
  double forward_flops_per_sample = 0;
  MeasuredSoFar so_far;
  double waited_before_epoch = 0;  // waited() when the epoch began

  void epoch_begins();
  // After the training pass, before the test pass: the state each rank holds.
  void training_pass_ended();
  // The epoch's measured fields of `record` (memory peaks, step phases, bubble, communication,
  // GPU readings), once `record.duration_s` is known; `train_s` and `train_samples` are the
  // training pass's.
  void epoch_ended(results::EpochRecord& record, double train_s, int64_t train_samples);
  // The summary's peaks, estimates, parameters, FLOPs, TFLOP/s and MFU.
  void summarize(results::Summary& summary, const Techniques& techniques,
                 double configured_peak_tflops) const;
};

}  // namespace runner::measure
