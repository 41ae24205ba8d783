// The checks of [train]'s techniques against the run: micro-batches against each rank's share
// of the batch, fp16 against the device.
#include "train/technique_checks.hpp"

#include <fmt/format.h>
#include <torch/torch.h>

namespace runner::train {
namespace {

std::string run_suffix(const config::RunConfig& run) {
  return run.label.empty() ? "" : " (run " + run.label + ")";
}

void check_micro_batches(const config::RunConfig& run, int world_size) {
  const int64_t batch = run.train.get_int("batch_size");
  const int64_t micro = run.train.get_int("micro_batches");
  const int64_t per_rank = batch / world_size;
  if (per_rank % micro == 0) return;
  const int64_t unit = static_cast<int64_t>(world_size) * micro;
  throw ConfigError(
      fmt::format("train.micro_batches = {} does not divide a rank's {} samples per step "
                  "(train.batch_size = {} over {} rank{}): global batch = ranks x micro-batches "
                  "x micro-batch size = {} x {} x {:.4g}{}",
                  micro, per_rank, batch, world_size, world_size == 1 ? "" : "s", world_size, micro,
                  static_cast<double>(per_rank) / static_cast<double>(micro), run_suffix(run)),
      fmt::format("make train.batch_size a multiple of {} (such as {}), or change "
                  "train.micro_batches",
                  unit, std::max<int64_t>(unit, batch / unit * unit)));
}

bool runs_on_cpu(const config::RunConfig& run) {
  const std::string device = run.train.get_string("device");
  return device == "cpu" || (device == "auto" && !torch::cuda::is_available());
}

}  // namespace

void check_techniques(const config::RunConfig& run, int world_size) {
  check_micro_batches(run, world_size);
  if (run.train.get_string("precision") == "fp16" && runs_on_cpu(run))
    throw ConfigError(
        "train.precision = \"fp16\" needs a CUDA device, and this run is on the CPU" +
            run_suffix(run),
        "use train.precision = \"bf16\" on the CPU (fp16 has no fast CPU kernels, and its loss "
        "scaling exists for GPU tensor cores), or train.device = \"cuda\"");
}

}  // namespace runner::train
