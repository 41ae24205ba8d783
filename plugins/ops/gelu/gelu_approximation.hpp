// The three forms of GELU the op computes. Shared by the CPU and the CUDA kernels, so it
// includes nothing.
#pragma once

namespace gelu {

enum class Approximation : int {
  none,     // x * Phi(x) = 0.5 x (1 + erf(x / sqrt 2))
  tanh,     // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
  sigmoid,  // x * sigmoid(1.702 x)
};

}  // namespace gelu
