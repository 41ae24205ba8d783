// Tests of the choice of OpenBLAS's kernels where it fell back to Prescott's.
#include "machine/blas_kernels.hpp"

#include <gtest/gtest.h>

namespace runner::machine {
namespace {

CpuVectorUnits avx512() { return {true, true}; }
CpuVectorUnits avx2() { return {false, true}; }
CpuVectorUnits sse_only() { return {false, false}; }

TEST(BlasKernels, PrescottOnAnAvx512CpuBecomesSkylakeX) {
  EXPECT_EQ(better_openblas_kernels("Prescott", avx512()), "SkylakeX");
  EXPECT_EQ(better_openblas_kernels("PRESCOTT", avx512()), "SkylakeX");
}

TEST(BlasKernels, PrescottOnAnAvx2CpuBecomesHaswell) {
  EXPECT_EQ(better_openblas_kernels("Prescott", avx2()), "Haswell");
}

TEST(BlasKernels, PrescottIsRightForACpuWithoutAvx2) {
  EXPECT_EQ(better_openblas_kernels("Prescott", sse_only()), std::nullopt);
}

TEST(BlasKernels, KernelsOpenBlasChoseForThisCpuAreKept) {
  for (const char* chosen : {"SkylakeX", "Cooperlake", "Haswell", "Zen", "SapphireRapids"})
    EXPECT_EQ(better_openblas_kernels(chosen, avx512()), std::nullopt) << chosen;
}

TEST(BlasKernels, AnotherBlasIsLeftAlone) {
  EXPECT_EQ(better_openblas_kernels("", avx512()), std::nullopt);
}

}  // namespace
}  // namespace runner::machine
