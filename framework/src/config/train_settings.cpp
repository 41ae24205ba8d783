// [train]'s keys read into TrainSettings, its technique keys into the SDK's Techniques.
#include "config/train_settings.hpp"

namespace runner::config {
namespace {

Precision precision_of(const std::string& name) {
  if (name == "bf16") return Precision::bf16;
  if (name == "fp16") return Precision::fp16;
  return Precision::fp32;
}

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

}  // namespace

TrainSettings train_settings_of(const Options& keys) {
  TrainSettings t;
  t.keys = keys;
  t.epochs = keys.get_int("epochs");
  t.batch_size = keys.get_int("batch_size");
  t.test_batch_size = keys.get_int("test_batch_size");
  t.device = keys.get_string("device");
  t.threads = keys.get_int("threads");
  t.memory_budget_gib = keys.get_double("memory_budget");
  t.peak_tflops = keys.get_double("peak_tflops");
  t.num_workers = keys.get_int("num_workers");
  t.prefetch = keys.get_int("prefetch");
  t.pin_memory = keys.get_bool("pin_memory");
  t.log_every = keys.get_int("log_every");
  t.max_steps_per_epoch = keys.get_int("max_steps_per_epoch");
  t.max_eval_steps = keys.get_int("max_eval_steps");
  t.deterministic = keys.get_bool("deterministic");
  t.vendor_conv = keys.get_string("backend_conv") == "vendor";
  t.collective_ledger_entries = keys.get_int("collective_ledger");
  t.max_restarts = keys.get_int("max_restarts");
  t.stall_timeout_s = keys.get_int("stall_timeout_s");
  t.check_collectives = keys.get_bool("check_collectives");
  t.techniques = techniques_of(keys);
  return t;
}

}  // namespace runner::config
