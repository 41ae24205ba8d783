// AdamW's update of one float parameter, in one pass over it, its gradient and both moments.
#pragma once

#include <cstdint>

namespace runner::train {

// One parameter's scalars for one step, in float as LibTorch's kernels use them.
struct AdamWCoefficients {
  float decay;  // 1 - lr * weight_decay
  float beta1, one_minus_beta1;
  float beta2, one_minus_beta2;
  float bias_correction2_sqrt;  // sqrt(1 - beta2^step)
  float eps;
  float negative_step_size;  // -lr / (1 - beta1^step)
};

// Each of the n elements in the order of LibTorch's AdamW: p *= decay;
// m = m * beta1 + (1 - beta1) * g; v = v * beta2 + (1 - beta2) * g * g;
// p += -step_size * m / (sqrt(v) / sqrt(1 - beta2^step) + eps). On ATen's threads; each element
// alone, so the result does not depend on their number.
void adamw_update(float* p, const float* g, float* m, float* v, int64_t n,
                  const AdamWCoefficients& c);

}  // namespace runner::train
