// A run's measures per epoch and for its summary, gathered over the ranks.
#include "measure/run_measures.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "measure/mfu.hpp"
#include "measure/system.hpp"

namespace runner::measure {
namespace {

// Each element the larger of `kept`'s and `values`'.
void keep_largest(std::vector<double>& kept, const std::vector<double>& values) {
  kept.resize(values.size(), 0.0);
  for (size_t r = 0; r < values.size(); ++r) kept[r] = std::max(kept[r], values[r]);
}

double mean(const std::vector<double>& values) {
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

// The mean utilisation over the ranks that measured it, and the largest memory use.
void record_gpu(const RunMeasures& m, results::EpochRecord& record) {
  const GpuEpoch mine = m.gpu ? m.gpu->take() : GpuEpoch{};
  const std::vector<double> utilizations = m.per_rank(mine.utilization);
  const std::vector<double> memories = m.per_rank(mine.memory_used_bytes);
  double sum = 0;
  int measured = 0;
  for (size_t r = 0; r < utilizations.size(); ++r) {
    if (std::isnan(utilizations[r])) continue;
    sum += utilizations[r];
    ++measured;
    record.gpu_memory_used_bytes = std::isnan(record.gpu_memory_used_bytes)
                                       ? memories[r]
                                       : std::max(record.gpu_memory_used_bytes, memories[r]);
  }
  if (measured > 0) record.gpu_utilization = sum / measured;
}

// The ranks' waits in collectives: their mean, and on several ranks their spread and the rank
// that waited least, which the others waited for. NaN where not measured.
void record_waits(const std::vector<double>& waits, results::EpochRecord& record) {
  record.communication_s = mean(waits);
  if (waits.size() < 2 || std::isnan(record.communication_s)) return;
  const auto [least, most] = std::minmax_element(waits.begin(), waits.end());
  record.communication_min_s = *least;
  record.communication_max_s = *most;
  record.slowest_rank = static_cast<double>(least - waits.begin());
}

}  // namespace

void RunMeasures::epoch_begins() {
  memory->epoch_begins();
  waited_before_epoch = waited();
  if (gpu) gpu->epoch_begins();
}

void RunMeasures::training_pass_ended() {
  so_far.state_memory_per_rank = per_rank(memory->tensors_in_use());
}

void RunMeasures::epoch_ended(results::EpochRecord& record, double train_s, int64_t train_samples) {
  const double waited_in_epoch = waited() - waited_before_epoch;  // within the duration
  so_far.train_compute_s += train_s;
  so_far.train_samples += train_samples;
  const std::vector<double> peaks = per_rank(memory->process_peak());
  record.peak_memory_bytes = *std::max_element(peaks.begin(), peaks.end());
  keep_largest(so_far.peak_memory_per_rank, peaks);
  keep_largest(so_far.tensor_peak_per_rank, per_rank(memory->tensor_peak()));
  const PhaseTotals phases = meter->take();
  record.forward_s = phases.forward_s;
  record.backward_s = phases.backward_s;
  record.optimizer_s = phases.optimizer_s;
  record.activation_memory_bytes = phases.activation_bytes;
  record.bubble_fraction = mean(per_rank(phases.wait_s / std::max(1e-9, train_s)));
  record_waits(per_rank(waited_in_epoch), record);
  record_gpu(*this, record);
}

void RunMeasures::summarize(results::Summary& summary, const Techniques& techniques,
                            double configured_peak_tflops) const {
  summary.peak_memory_per_rank_bytes = so_far.peak_memory_per_rank;
  summary.tensor_peak_per_rank_bytes = so_far.tensor_peak_per_rank;
  summary.state_memory_per_rank_bytes = so_far.state_memory_per_rank;
  for (const auto& rank : plan.ranks)
    summary.estimated_memory_per_rank_bytes.push_back(rank.total());
  summary.parameters = parameters;
  summary.flops_per_sample =
      training_flops_per_sample(forward_flops_per_sample, techniques.checkpoint_layers);
  summary.tflops = summary.flops_per_sample * static_cast<double>(so_far.train_samples) /
                   std::max(1e-9, so_far.train_compute_s) / 1e12;
  const double peak = peak_tflops(configured_peak_tflops,
                                  device.is_cuda() ? cuda_device_name() : "", techniques.precision);
  summary.mfu = model_flops_utilisation(summary.tflops, peak, world_size);
}

}  // namespace runner::measure
