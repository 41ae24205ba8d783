// OpenBLAS's kernels: which ones it chose, and starting again on better ones.
#include "machine/blas_kernels.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>

namespace runner::machine {

CpuVectorUnits this_cpu() {
  __builtin_cpu_init();
  CpuVectorUnits cpu;
  cpu.avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
               __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512vl");
  cpu.avx2_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return cpu;
}

std::string openblas_kernels() {
  using CoreName = char* (*)();
  auto core_name = reinterpret_cast<CoreName>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  const char* name = core_name ? core_name() : nullptr;
  return name ? name : "";
}

std::optional<std::string> better_openblas_kernels(const std::string& loaded,
                                                   const CpuVectorUnits& cpu) {
  std::string lower = loaded;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower != "prescott") return std::nullopt;
  if (cpu.avx512) return "SkylakeX";
  if (cpu.avx2_fma) return "Haswell";
  return std::nullopt;
}

void run_again_on_better_openblas_kernels(char** argv) {
  if (std::getenv("OPENBLAS_CORETYPE")) return;
  const auto better = better_openblas_kernels(openblas_kernels(), this_cpu());
  if (!better) return;
  setenv("OPENBLAS_CORETYPE", better->c_str(), 1);
  execv("/proc/self/exe", argv);
}

}  // namespace runner::machine
