// Which copy of a vectorized CPU kernel to run (see runner_add_cpu_kernels() in
// RunnerPlugin.cmake), so that an op and the function it is compared with run the same width:
// ATen's choice (the widest the processor supports, except that LibTorch 1.x runs AVX512
// kernels only when ATEN_CPU_CAPABILITY=avx512 asks for them), or the widest. The variable
// (default, avx2, avx512) lowers either.
#pragma once

#include <torch/version.h>

#include <cstdlib>
#include <string>

namespace runner {

enum class CpuCapability { DEFAULT, AVX2, AVX512 };

namespace detail {

inline CpuCapability widest_supported() {
#if defined(__x86_64__) || defined(_M_X64)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("fma"))
    return CpuCapability::AVX512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return CpuCapability::AVX2;
#endif
  return CpuCapability::DEFAULT;
}

// LibTorch 1.x's default on a processor with AVX512 (measured with 1.13's at::gelu; the
// default of 2.x was not measured).
inline CpuCapability atens_default(CpuCapability supported) {
  if (TORCH_VERSION_MAJOR < 2 && supported == CpuCapability::AVX512) return CpuCapability::AVX2;
  return supported;
}

// What ATEN_CPU_CAPABILITY asks for, at most `supported`; `otherwise` when it is not set.
inline CpuCapability asked_or(CpuCapability supported, CpuCapability otherwise) {
  const char* env = std::getenv("ATEN_CPU_CAPABILITY");
  if (env == nullptr) return otherwise;
  const std::string asked(env);
  CpuCapability wanted = asked == "avx512"    ? CpuCapability::AVX512
                         : asked == "avx2"    ? CpuCapability::AVX2
                         : asked == "default" ? CpuCapability::DEFAULT
                                              : supported;
  return wanted < supported ? wanted : supported;
}

}  // namespace detail

// The width ATen's own kernels run: for an op compared with an ATen function.
inline CpuCapability cpu_capability() {
  static const CpuCapability chosen = detail::asked_or(
      detail::widest_supported(), detail::atens_default(detail::widest_supported()));
  return chosen;
}

// The widest the processor supports, lowered only by ATEN_CPU_CAPABILITY: for an op compared
// with a vendor library's kernel (oneDNN's convolution), which takes the widest vectors
// whatever ATen's default.
inline CpuCapability widest_cpu_capability() {
  static const CpuCapability chosen =
      detail::asked_or(detail::widest_supported(), detail::widest_supported());
  return chosen;
}

inline const char* cpu_capability_name(CpuCapability capability) {
  switch (capability) {
    case CpuCapability::AVX512: return "avx512";
    case CpuCapability::AVX2: return "avx2";
    default: return "default";
  }
}

}  // namespace runner
