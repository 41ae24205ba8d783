// Planning helpers for strategies: the bytes of one whole replica (fp32 weights, gradients and
// optimizer state) and of one micro-batch's activations with the techniques, from the model's
// estimate alone. A strategy's planner (runner/plan.hpp) starts from these.
#pragma once

#include <runner/plan.hpp>

namespace runner::strategies {

// Samples of one forward on a rank: the global batch over the data-parallel degree and the
// micro-batches.
int64_t micro_batch_size(const PlanInput& input, int data_parallel_degree);

// Bytes at the peak of one micro-batch of `samples`: every layer's held bytes, or with
// checkpointing the layers' outputs and one layer run again in backward; the loss's twice
// (what it keeps, and the gradient backward starts from); with autocast the 16-bit copies of
// the weights that the saved matmul inputs keep alive. Or, when larger, what a test batch's
// forward holds at its end: the outputs and the loss's.
double activation_bytes(const PlanInput& input, int64_t samples);

// A whole replica on one rank: fp32 parameters, gradients and optimizer state (with the
// optimizer's temporaries, as large as the largest layer's parameters), the model's buffers,
// and the activations of one micro-batch of `samples`.
MemoryPlan replica_memory(const PlanInput& input, int64_t samples);

// Every rank holds a whole replica (single, ddp, dp's first device): `buffers_per_rank`
// bytes besides (ddp's gradient buckets).
RunPlan replicated_plan(const PlanInput& input, int data_parallel_degree, int ranks,
                        double buffers_per_rank, std::string notes);

}  // namespace runner::strategies
