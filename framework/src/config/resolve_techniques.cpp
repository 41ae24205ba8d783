// [train]'s technique keys read into the SDK's Techniques.
#include "config/resolve_techniques.hpp"

namespace runner::config {
namespace {

Precision precision_of(const std::string& name) {
  if (name == "bf16") return Precision::bf16;
  if (name == "fp16") return Precision::fp16;
  return Precision::fp32;
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

}  // namespace runner::config
