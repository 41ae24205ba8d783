// Which kernels OpenBLAS runs on, and a better choice where it did not know this CPU.
#pragma once

#include <optional>
#include <string>

namespace runner::machine {

// What OpenBLAS's x86-64 kernels need of the CPU.
struct CpuVectorUnits {
  bool avx512 = false;    // F, CD, BW, DQ and VL: OpenBLAS's SkylakeX kernels
  bool avx2_fma = false;  // its Haswell kernels
};

CpuVectorUnits this_cpu();

// openblas_get_corename() of the loaded OpenBLAS ("SkylakeX", "Prescott"); "" where the BLAS
// is not OpenBLAS.
std::string openblas_kernels();

// An OpenBLAS too old for this CPU model falls back to its Prescott (SSE3) kernels: fp32 GEMMs
// at 27 GFLOP/s on an Emerald Rapids core pair that runs the SkylakeX ones at 175
// (tools/bench/README.md). The kernels this CPU can run instead; nullopt where OpenBLAS chose
// anything but Prescott, or the CPU has neither AVX-512 nor AVX2.
std::optional<std::string> better_openblas_kernels(const std::string& loaded,
                                                   const CpuVectorUnits& cpu);

// OpenBLAS reads OPENBLAS_CORETYPE only as it loads: where it fell back to Prescott and the
// variable is unset, sets it and starts this program again in this process (execv of
// /proc/self/exe). Returns where there is nothing to do, or the exec failed.
void run_again_on_better_openblas_kernels(char** argv);

}  // namespace runner::machine
