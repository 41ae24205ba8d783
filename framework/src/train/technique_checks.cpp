// The checks of [train]'s batch and techniques against the run: the batch against the ranks,
// micro-batches against each replica's share of it, fp16 against the device.
#include "train/technique_checks.hpp"

#include <fmt/format.h>
#include <torch/torch.h>

#include "config/experiment.hpp"

namespace runner::train {
namespace {

std::string run_suffix(const config::RunConfig& run) {
  return run.label.empty() ? "" : " (run " + run.label + ")";
}

void check_micro_batches(const config::RunConfig& run, int replicas) {
  const int64_t batch = run.train.batch_size;
  const int64_t micro = run.train.techniques.micro_batches;
  const int64_t per_replica = batch / replicas;
  if (per_replica % micro == 0) return;
  const int64_t unit = static_cast<int64_t>(replicas) * micro;
  throw ConfigError(
      fmt::format("train.micro_batches = {} does not divide a replica's {} samples per step "
                  "(train.batch_size = {} over {} data-parallel replica{}): global batch = "
                  "replicas x micro-batches x micro-batch size = {} x {} x {:.4g}{}",
                  micro, per_replica, batch, replicas, replicas == 1 ? "" : "s", replicas, micro,
                  static_cast<double>(per_replica) / static_cast<double>(micro), run_suffix(run)),
      fmt::format("make train.batch_size a multiple of {} (such as {}), or change "
                  "train.micro_batches",
                  unit, std::max<int64_t>(unit, batch / unit * unit)));
}

bool runs_on_cpu(const config::RunConfig& run) {
  const std::string device = run.train.device;
  return device == "cpu" || (device == "auto" && !torch::cuda::is_available());
}

}  // namespace

void check_techniques(const config::RunConfig& run, int replicas) {
  check_micro_batches(run, replicas);
  if (run.train.techniques.precision == Precision::fp16 && runs_on_cpu(run))
    throw ConfigError(
        "train.precision = \"fp16\" needs a CUDA device, and this run is on the CPU" +
            run_suffix(run),
        "use train.precision = \"bf16\" on the CPU (fp16 has no fast CPU kernels, and its loss "
        "scaling exists for GPU tensor cores), or train.device = \"cuda\"");
}

void check_batch_divides(const config::RunConfig& run, int world_size) {
  const int64_t batch = run.train.batch_size;
  if (batch % world_size == 0) return;
  throw ConfigError(fmt::format("train.batch_size = {} does not divide among {} ranks{}", batch,
                                world_size, run_suffix(run)),
                    "train.batch_size is the global batch: make it a multiple of the ranks");
}

}  // namespace runner::train
