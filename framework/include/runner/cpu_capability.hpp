// Which copy of a vectorized CPU kernel to run (see runner_add_cpu_kernels() in
// RunnerPlugin.cmake), chosen as ATen chooses its own, so an op and the ATen function it is
// compared with run the same width: the widest the processor supports, except that LibTorch 1.x
// runs AVX512 kernels only when ATEN_CPU_CAPABILITY=avx512 asks for them; the variable (default,
// avx2, avx512) can also lower the choice.
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
inline CpuCapability unrequested(CpuCapability supported) {
  if (TORCH_VERSION_MAJOR < 2 && supported == CpuCapability::AVX512) return CpuCapability::AVX2;
  return supported;
}

inline CpuCapability requested(CpuCapability supported) {
  const char* env = std::getenv("ATEN_CPU_CAPABILITY");
  if (env == nullptr) return unrequested(supported);
  const std::string asked(env);
  CpuCapability wanted = asked == "avx512"  ? CpuCapability::AVX512
                         : asked == "avx2" ? CpuCapability::AVX2
                         : asked == "default" ? CpuCapability::DEFAULT
                                              : supported;
  return wanted < supported ? wanted : supported;
}

}  // namespace detail

inline CpuCapability cpu_capability() {
  static const CpuCapability chosen = detail::requested(detail::widest_supported());
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
