// AdamW's one-pass update (built without errno for std::sqrt, so that the loop vectorizes).
#include "train/adamw_update.hpp"

#include <ATen/Parallel.h>

#include <cmath>

namespace runner::train {

void adamw_update(float* p, const float* g, float* m, float* v, int64_t n,
                  const AdamWCoefficients& c) {
  constexpr int64_t grain = 1 << 15;
  at::parallel_for(0, n, grain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const float grad = g[i];
      const float avg = m[i] * c.beta1 + c.one_minus_beta1 * grad;
      const float avg_sq = v[i] * c.beta2 + c.one_minus_beta2 * grad * grad;
      const float denom = std::sqrt(avg_sq) / c.bias_correction2_sqrt + c.eps;
      m[i] = avg;
      v[i] = avg_sq;
      p[i] = p[i] * c.decay + c.negative_step_size * avg / denom;
    }
  });
}

}  // namespace runner::train
