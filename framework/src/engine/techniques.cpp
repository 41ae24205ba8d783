#include "engine/techniques.hpp"

#include <fmt/format.h>
#include <torch/torch.h>

namespace runner::engine {
namespace {

Precision precision_of(const std::string& name) {
  if (name == "bf16") return Precision::bf16;
  if (name == "fp16") return Precision::fp16;
  return Precision::fp32;
}

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

Techniques techniques_of(const Options& train) {
  Techniques t;
  t.micro_batches = train.get_int("micro_batches");
  t.precision = precision_of(train.get_string("precision"));
  t.loss_scaling.initial_scale = train.get_double("loss_scale");
  t.loss_scaling.growth_interval = train.get_int("loss_scale_growth_interval");
  t.loss_scaling.backoff = train.get_double("loss_scale_backoff");
  t.checkpoint_layers = train.get_string("activation_checkpointing") == "layers";
  t.grad_clip_norm = train.get_double("grad_clip_norm");
  return t;
}

void check_techniques(const config::RunConfig& run, int world_size) {
  check_micro_batches(run, world_size);
  if (run.train.get_string("precision") == "fp16" && runs_on_cpu(run))
    throw ConfigError(
        "train.precision = \"fp16\" needs a CUDA device, and this run is on the CPU" +
            run_suffix(run),
        "use train.precision = \"bf16\" on the CPU (fp16 has no fast CPU kernels, and its loss "
        "scaling exists for GPU tensor cores), or train.device = \"cuda\"");
}

}  // namespace runner::engine
