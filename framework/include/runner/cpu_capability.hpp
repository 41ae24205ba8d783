// Which copy of a vectorized CPU kernel to run (see runner_add_cpu_kernels() in
// RunnerPlugin.cmake), chosen as ATen chooses its own: the widest the processor supports,
// lowered by the ATEN_CPU_CAPABILITY variable (default, avx2, avx512), so an op and the ATen
// function it is compared with run the same width.
#pragma once

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

inline CpuCapability requested(CpuCapability supported) {
  const char* env = std::getenv("ATEN_CPU_CAPABILITY");
  if (env == nullptr) return supported;
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
