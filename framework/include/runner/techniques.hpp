// The [train] techniques every strategy honours: gradient accumulation over micro-batches,
// mixed precision with loss scaling, activation checkpointing and gradient clipping. The host
// reads them from the run's keys and hands them to the strategy's setup; the strategy-support
// library (runner/strategies/) implements each one once.
#pragma once

#include <cstdint>
#include <string>

namespace runner {

enum class Precision { fp32, bf16, fp16 };

inline const char* precision_name(Precision p) {
  switch (p) {
    case Precision::bf16: return "bf16";
    case Precision::fp16: return "fp16";
    case Precision::fp32: break;
  }
  return "fp32";
}

// fp16's dynamic loss scaling, as torch.cuda.amp.GradScaler: the loss is multiplied by `scale`
// before backward; a step whose gradients hold an inf or a nan is skipped and the scale
// multiplied by `backoff`; after `growth_interval` good steps in a row it is multiplied by
// `growth`.
struct LossScaling {
  double initial_scale = 65536.0;
  int64_t growth_interval = 2000;
  double growth = 2.0;
  double backoff = 0.5;
};

struct Techniques {
  // One train step = one optimizer step over `micro_batches` forward/backward passes, each
  // on 1/micro_batches of the rank's batch, gradients summed between them.
  int64_t micro_batches = 1;
  // fp32 everywhere, or autocast (bf16, fp16) over forward and loss with fp32 master weights.
  Precision precision = Precision::fp32;
  LossScaling loss_scaling;  // fp16 only
  // Each of the model's layers runs without keeping its activations and runs again in backward.
  bool checkpoint_layers = false;
  // Gradients rescaled so that their global L2 norm is at most this; 0: off.
  double grad_clip_norm = 0.0;
};

}  // namespace runner
