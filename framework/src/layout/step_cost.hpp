// The step-time model of a layout: the busiest rank's arithmetic at the calibrated GEMM rate,
// its elementwise memory traffic, checkpointing's second forward, its strategy's collectives
// and messages over the link, a pipeline's bubble, an offload's bytes moved, and what each
// micro-batch costs beside its arithmetic.
#pragma once

#include <runner/model.hpp>

#include <string>

#include "layout/layouts.hpp"
#include "layout/rates.hpp"

namespace runner::layout {

struct StepCost {
  double compute = 0;        // forward and backward: 3x the forward's FLOPs
  double memory = 0;         // activations written and read, the optimizer's pass
  double recompute = 0;      // checkpointing: one more forward
  double communication = 0;  // collectives and pipeline messages, what is not overlapped
  double bubble = 0;         // a pipeline's stages waiting at its start and end
  double offload = 0;        // the optimizer state to files (nvme) or to the host (cpu)
  double passes = 0;         // each micro-batch's pass over the weights: casts, accumulation

  double total() const {
    return compute + memory + recompute + communication + bubble + offload + passes;
  }
};

struct StepInput {
  const Layout& layout;
  const ModelEstimate& model;
  int64_t batch_size = 1;  // the global batch
  int optimizer_states_per_parameter = 2;
  Devices devices;
};

StepCost predict_step(const StepInput& input, const Rates& rates);

// The term by which `cost` loses most to `best`: "+1.2 s communication"; empty when none is
// larger.
std::string why_slower(const StepCost& cost, const StepCost& best);

}  // namespace runner::layout
